#include "properties/verdict_table.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "properties/json_writer.h"

namespace stackcheck::properties {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// v1a-callback-unlock is expected to leak; v0-nocache to hold no-use-after-free.
constexpr char kViolatedPolicy[] = "v1a-callback-unlock";
constexpr char kViolatedProperty[] = "no-leak";
constexpr char kHoldsPolicy[] = "v0-nocache";
constexpr char kHoldsProperty[] = "no-use-after-free";

VerdictCell Holds() {
  VerdictCell c;
  c.state = VerdictCell::State::kHolds;
  c.executions = 10;
  return c;
}

VerdictCell Violated() {
  VerdictCell c;
  c.state = VerdictCell::State::kViolated;
  c.executions = 10;
  c.size = "1 thread";
  return c;
}

TEST(VerdictTableTest, AnExpectedViolationNotFoundIsAMismatchOnlyWhenEveryBugIsReached) {
  VerdictTable table;
  table.columns = {"sim"};
  VerdictRow& row = table.Row(kViolatedPolicy, kViolatedProperty);
  ASSERT_EQ(row.expected, Expectation::kViolated);
  row.cells[0] = Holds();
  EXPECT_EQ(JudgeCell(row, row.cells[0], Reach::kEveryExpectedBug), Judgement::kMismatch);
  EXPECT_EQ(JudgeCell(row, row.cells[0], Reach::kFixedScenarios), Judgement::kNotReached);

  EXPECT_FALSE(AllMatch(table));
  EXPECT_THAT(FormatVerdictTable(table), HasSubstr("<-- MISMATCH"));

  table.reach = Reach::kFixedScenarios;
  EXPECT_TRUE(AllMatch(table));
  const std::string text = FormatVerdictTable(table);
  EXPECT_THAT(text, HasSubstr("holds over 10 executions  <-- not reached"));
  EXPECT_THAT(text, Not(HasSubstr("MISMATCH")));
  JsonWriter json;
  WriteVerdictTableJson(table, json);
  EXPECT_THAT(json.str(), HasSubstr(R"("judgement":"not-reached","matches":true)"));
}

TEST(VerdictTableTest, AViolationExpectedNotToHappenIsAMismatchUnderEitherReach) {
  for (const Reach reach : {Reach::kEveryExpectedBug, Reach::kFixedScenarios}) {
    VerdictTable table;
    table.columns = {"sim"};
    table.reach = reach;
    VerdictRow& row = table.Row(kHoldsPolicy, kHoldsProperty);
    ASSERT_EQ(row.expected, Expectation::kHolds);
    row.cells[0] = Violated();
    EXPECT_FALSE(AllMatch(table));
    EXPECT_THAT(FormatVerdictTable(table), HasSubstr("<-- MISMATCH"));
    JsonWriter json;
    WriteVerdictTableJson(table, json);
    EXPECT_THAT(json.str(), HasSubstr(R"("judgement":"mismatch","matches":false)"));
  }
}

TEST(VerdictTableTest, AFailedCheckDisagreesAndNoClaimAgrees) {
  VerdictTable table;
  table.columns = {"sim"};
  table.reach = Reach::kFixedScenarios;
  VerdictRow& row = table.Row(kHoldsPolicy, kHoldsProperty);
  row.cells[0].message = "the simulator has no checker for it";  // kNotRun
  EXPECT_TRUE(AllMatch(table));
  EXPECT_THAT(FormatVerdictTable(table),
              HasSubstr("not checked: the simulator has no checker for it\n"));

  row.cells[0].state = VerdictCell::State::kUnavailable;
  row.cells[0].message = "one-region: the search failed";
  EXPECT_EQ(JudgeCell(row, row.cells[0], table.reach), Judgement::kMismatch);
  EXPECT_FALSE(AllMatch(table));
}

TEST(VerdictTableTest, AgreeingRowsAreUnmarked) {
  VerdictTable table;
  table.columns = {"sim"};
  table.Row(kViolatedPolicy, kViolatedProperty).cells[0] = Violated();
  table.Row(kHoldsPolicy, kHoldsProperty).cells[0] = Holds();
  EXPECT_TRUE(AllMatch(table));
  EXPECT_THAT(FormatVerdictTable(table), Not(HasSubstr("<--")));
}

}  // namespace
}  // namespace stackcheck::properties
