#include "hardware/scenario_search.h"

#include <iostream>
#include <regex>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/policies/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/steered_replay.h"
#include "properties/explore.h"
#include "properties/replay_file.h"
#include "properties/scenarios.h"

namespace stackcheck::hardware {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

ScenarioSearch Search(const char* policy, const char* scenario,
                      ScenarioSearchOptions options = {}) {
  return SearchScenario(properties::FindHardwareScenario(scenario)->scenario, *FindPolicy(policy),
                        options);
}

// The steering of the simulator's counterexample of `property`.
Steering SteeringOf(const char* policy, const char* scenario, const char* property) {
  const ScenarioSearch s = Search(policy, scenario);
  EXPECT_EQ(s.counterexamples.count(property), 1u) << policy << " " << scenario;
  if (s.counterexamples.count(property) == 0) return Steering{};
  absl::StatusOr<Steering> st = SteeringFor(s.counterexamples.at(property).record);
  EXPECT_TRUE(st.ok()) << st.status();
  return st.ok() ? *st : Steering{};
}

TEST(SearchScenario, ExhaustsASmallScenario) {
  const ScenarioSearch s = Search("v2-gcc11", "two-threads");
  EXPECT_TRUE(s.error.empty()) << s.error;
  EXPECT_TRUE(s.exhausted);
  EXPECT_EQ(s.random_executions, 0u);
  EXPECT_TRUE(s.counterexamples.empty());
  EXPECT_TRUE(s.ExhaustiveFor("no-stack-overlap"));
  EXPECT_THAT(s.DescribeFor("no-stack-overlap"), StartsWith("exhaustive DPOR, "));
}

TEST(SearchScenario, FallsBackToRandomSchedulesOverBudget) {
  ScenarioSearchOptions o;
  o.dfs_budget = 1;
  o.random_executions = 5;
  const ScenarioSearch s = Search("v2-gcc11", "two-threads", o);
  EXPECT_FALSE(s.exhausted);
  EXPECT_EQ(s.executions(), 6u);
  EXPECT_FALSE(s.ExhaustiveFor("no-stack-overlap"));
  EXPECT_EQ(s.DescribeFor("no-stack-overlap"), "1 DPOR + 5 random executions, not exhaustive");
}

TEST(SearchScenario, CounterexampleReplaysFromItsToken) {
  const ScenarioSearch s = Search("v1b-callback-lock", "grow-while-busy");
  ASSERT_EQ(s.counterexamples.count("no-deadlock"), 1u);
  const Counterexample& cx = s.counterexamples.at("no-deadlock");
  absl::StatusOr<properties::ReplayRecord> record = properties::LoadReplay(cx.token);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->policy, "v1b-callback-lock");
  absl::StatusOr<properties::Execution> e =
      properties::Execute(record->test_case, *FindPolicy("v1b-callback-lock"), {});
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_TRUE(e->violation.has_value());
  EXPECT_EQ(e->violation->property, "no-deadlock");
  // Another property's violations end executions early: no exhaustive claim.
  EXPECT_FALSE(s.ExhaustiveFor("no-stack-overlap"));
  EXPECT_THAT(s.DescribeFor("no-stack-overlap"), HasSubstr("stopped early by"));
}

TEST(SteeringFor, StartsEachThreadWhenTheCounterexampleRanIt) {
  // V0's misattributed abort: thread 1's region begins once thread 0's
  // 2 ms kernel has aborted.
  const ScenarioSearch s = Search("v0-nocache", "abort-beside-region");
  ASSERT_EQ(s.counterexamples.count("abort-attribution"), 1u);
  absl::StatusOr<Steering> st = SteeringFor(s.counterexamples.at("abort-attribution").record);
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_TRUE(st->steerable) << st->not_steerable;
  EXPECT_THAT(st->spawn_delays, ElementsAre(absl::ZeroDuration(), absl::Milliseconds(2)));
  EXPECT_EQ(st->min_kernel_duration, absl::ZeroDuration());
}

TEST(SteeringFor, StretchesKernelsThatMustStayPending) {
  const ScenarioSearch s = Search("event-fence", "one-region");
  ASSERT_EQ(s.counterexamples.count("sync-completion"), 1u);
  absl::StatusOr<Steering> st = SteeringFor(s.counterexamples.at("sync-completion").record);
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_TRUE(st->steerable);
  EXPECT_EQ(st->min_kernel_duration, kPendingKernel);
}

TEST(SteeringFor, CallbackKeptFromAReleasedLockIsNotSteerable) {
  const ScenarioSearch s = Search("v1b-callback-lock", "abort");
  ASSERT_EQ(s.counterexamples.count("abort-attribution"), 1u);
  absl::StatusOr<Steering> st = SteeringFor(s.counterexamples.at("abort-attribution").record);
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_FALSE(st->steerable);
  EXPECT_THAT(st->Describe(), HasSubstr("not steerable: the schedule keeps the driver's "
                                        "callback thread"));
}

// V2's destroy of the held stacks lock at exit: the mapping thread never runs
// past its start in the counterexample (were it mapping, the exit would hang
// on the device lock instead), so on hardware it starts after the exit.
TEST(SteeringFor, ThreadThatNeverRanStartsAfterEverythingElse) {
  const ScenarioSearch s = Search("v2-gcc11", "abort-while-mapping");
  ASSERT_EQ(s.counterexamples.count("mutex-discipline"), 1u);
  absl::StatusOr<Steering> st = SteeringFor(s.counterexamples.at("mutex-discipline").record);
  ASSERT_TRUE(st.ok()) << st.status();
  ASSERT_TRUE(st->steerable) << st->not_steerable;
  EXPECT_THAT(st->spawn_delays,
              ElementsAre(absl::ZeroDuration(), absl::Milliseconds(2) + kNeverRanGap));
}

// Some counterexample of the callback policies holds the callback thread back
// while it could run; the rule must name it.
TEST(SteeringFor, CallbackPreemptedWhileRunnableIsNotSteerable) {
  int held_back = 0;
  std::string seen;
  for (const char* policy : {"v1a-callback-unlock", "v1b-callback-lock"}) {
    for (const properties::NamedScenario& named : properties::HardwareScenarios()) {
      const ScenarioSearch s = Search(policy, named.name.c_str());
      for (const auto& [property, found] : s.counterexamples) {
        absl::StatusOr<Steering> st = SteeringFor(found.record);
        ASSERT_TRUE(st.ok()) << st.status();
        absl::StrAppend(&seen, policy, " ", named.name, " ", property, ": ",
                        st->steerable ? "steerable" : st->not_steerable, "\n");
        if (absl::StrContains(st->not_steerable, "back while it could run")) {
          EXPECT_FALSE(st->steerable);
          ++held_back;
        }
      }
    }
  }
  EXPECT_GT(held_back, 0) << seen;
}

// V0's other thread reports the error first only if it runs between the
// kernel's end and the aborting thread's return from its wait: the OS picks.
TEST(SteeringFor, WokenThreadKeptWaitingMakesItApproximate) {
  const Steering st = SteeringOf("v0-nocache", "abort-while-mapping", "abort-attribution");
  EXPECT_TRUE(st.steerable);
  EXPECT_THAT(st.approximate, HasSubstr("woken from its wait"));
  EXPECT_THAT(st.Describe(), HasSubstr("; approximate: "));
}

// V1a's callback is registered after the kernel aborted only if the
// launching thread pauses between the two calls.
TEST(SteeringFor, KernelOutrunningARunnableThreadMakesItApproximate) {
  const Steering st =
      SteeringOf("v1a-callback-unlock", "abort-with-destructors", "abort-attribution");
  EXPECT_TRUE(st.steerable);
  EXPECT_THAT(st.approximate, HasSubstr("could go on"));
}

// Every counterexample the simulator finds in the hardware catalogue gets a
// steering or a reason why none can force it; the table is in the test log.
TEST(SteeringFor, EveryCatalogueCounterexampleIsSteeredOrExplained) {
  std::string table;
  for (const PolicyInfo& policy : AllPolicies()) {
    for (const properties::NamedScenario& named : properties::HardwareScenarios()) {
      const ScenarioSearch s = Search(policy.name, named.name.c_str());
      ASSERT_TRUE(s.error.empty()) << s.error;
      for (const auto& [property, found] : s.counterexamples) {
        absl::StatusOr<Steering> st = SteeringFor(found.record);
        ASSERT_TRUE(st.ok()) << policy.name << " " << named.name << " " << property << ": "
                             << st.status();
        EXPECT_EQ(st->steerable, st->not_steerable.empty()) << st->Describe();
        // A thread is never said to be passed over in favour of itself.
        EXPECT_FALSE(std::regex_search(st->approximate, std::regex(R"(runs (T\d+) while \1,)")))
            << st->Describe();
        absl::StrAppend(&table, policy.name, " ", named.name, " ", property, ": ", st->Describe(),
                        "\n");
      }
    }
  }
  std::cout << table;
}

TEST(SteeringFor, PropertyTheGpuCannotObserveIsNotSteerable) {
  properties::ReplayRecord record;
  record.policy = "v1b-callback-lock";
  record.property = "no-use-after-free";
  record.test_case.scenario = properties::FindHardwareScenario("one-region")->scenario;
  absl::StatusOr<Steering> st = SteeringFor(record);
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_FALSE(st->steerable);
  EXPECT_EQ(st->not_steerable, "the GPU cannot observe no-use-after-free");
}

TEST(SteeringFor, ScheduleThatDoesNotReplayToItsViolationIsAnError) {
  properties::ReplayRecord record;
  record.policy = "v2-gcc11";
  record.property = "no-deadlock";
  record.test_case.scenario = properties::FindHardwareScenario("one-region")->scenario;
  EXPECT_FALSE(SteeringFor(record).ok());
}

}  // namespace
}  // namespace stackcheck::hardware
