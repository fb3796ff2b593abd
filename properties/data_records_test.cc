// The one parser of properties/' checked-in tables, and the tables held to
// their schemas: every record well formed, every name one the registries
// know, no row twice.
#include "properties/data_records.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/catalogue.h"
#include "properties/expected_verdicts.h"
#include "properties/known_bugs.h"

namespace stackcheck::properties {
namespace {

const RecordSchema kSchema{"bug", {"fingerprint"}, {"corpus"}, {"why"}};

TEST(DataRecordsTest, ReadsRecordsOfKeyValueLines) {
  absl::StatusOr<std::vector<DataRecord>> r = ParseRecords("t", R"(# a comment

bug v2-gcc11
fingerprint no-deadlock: a cycle
why one
why two
bug v3-trunk
why three
fingerprint data-race: a pair
corpus v3.replay
)",
                                                           kSchema);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].line, 3);
  EXPECT_EQ((*r)[0].head, "v2-gcc11");
  EXPECT_EQ((*r)[0].Get("fingerprint"), "no-deadlock: a cycle");
  EXPECT_EQ((*r)[0].Get("why"), "one two");
  EXPECT_EQ((*r)[0].First("corpus"), "");
  EXPECT_EQ((*r)[1].First("corpus"), "v3.replay");
  EXPECT_EQ((*r)[1].First("fingerprint"), "data-race: a pair");
}

TEST(DataRecordsTest, ErrorsNameTheTableAndTheLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"fingerprint x\n", "t:1: a field before the first 'bug'"},
      {"bug p\nfingerprint f\nwhy w\nsize 3\n", "t:4: unknown field 'size'"},
      {"bug p\nwhy w\n", "t:1: the bug record lacks its 'fingerprint' line"},
      {"bug p\nfingerprint f\nwhy w\nbug q\nfingerprint g\n", "t:4: the bug record lacks 'why'"},
      {"bug p\nfingerprint f\nfingerprint g\nwhy w\n", "t:1: the bug record repeats its"},
      {"bug p\nfingerprint f\nwhy w\ncorpus a\ncorpus b\n", "t:1: 'corpus' given twice"},
      {"bug p\nfingerprint  f\n", "t:2: a line is 'key value'"},
      {"bug p\nfingerprint f \n", "t:2: a line is 'key value'"},
      {"bug\n", "t:1: a line is 'key value'"},
  };
  for (const auto& [text, error] : cases) {
    absl::StatusOr<std::vector<DataRecord>> r = ParseRecords("t", text, kSchema);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(absl::StartsWith(r.status().message(), error)) << r.status() << "\n" << text;
  }
}

TEST(KnownBugsTable, HoldsToItsSchema) {
  absl::StatusOr<std::vector<DataRecord>> records =
      ParseRecords("known_bugs.txt", KnownBugsTable(), KnownBugSchema());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), KnownBugs().size());
  std::set<std::pair<std::string, std::string>> seen;
  for (const KnownBug& bug : KnownBugs()) {
    EXPECT_NE(FindPolicy(bug.policy), nullptr) << bug.policy;
    EXPECT_NE(FindProperty(FingerprintProperty(bug.fingerprint)), nullptr) << bug.fingerprint;
    EXPECT_TRUE(seen.emplace(bug.policy, bug.fingerprint).second)
        << "listed twice: " << bug.policy << " " << bug.fingerprint;
    if (!bug.corpus.empty()) {
      EXPECT_TRUE(absl::EndsWith(bug.corpus, ".replay")) << bug.corpus;
    }
    if (!bug.check_scenario.empty()) {
      EXPECT_TRUE(absl::StrContains(bug.check_scenario, " threads=")) << bug.check_scenario;
    }
  }
}

TEST(ExpectedVerdictsTable, HoldsToItsSchema) {
  absl::StatusOr<std::vector<DataRecord>> records =
      ParseRecords("expected_verdicts.txt", ExpectedVerdictsTable(), ExpectedRowSchema());
  ASSERT_TRUE(records.ok()) << records.status();
  std::set<std::pair<std::string, std::string>> seen;
  for (const DataRecord& record : *records) {
    std::string why;
    absl::StatusOr<ExpectedRow> row = ParseExpectedRow(record, &why);
    ASSERT_TRUE(row.ok()) << row.status();
    EXPECT_NE(FindPolicy(row->policy), nullptr) << row->policy;
    EXPECT_NE(FindProperty(row->property), nullptr) << row->property;
    EXPECT_TRUE(seen.emplace(row->policy, row->property).second)
        << "listed twice: " << row->policy << " " << row->property;
    // Accepted deviations come from the policy registry, not from rows.
    EXPECT_NE(row->expectation, Expectation::kAcceptedDeviation) << row->policy;
  }
  DataRecord bad{7, "v2-gcc11 no-leak sometimes", {{"why", "w"}}};
  std::string why;
  EXPECT_EQ(ParseExpectedRow(bad, &why).status().message(),
            "expected_verdicts.txt:7: a row is 'row POLICY PROPERTY EXPECTATION'");
}

}  // namespace
}  // namespace stackcheck::properties
