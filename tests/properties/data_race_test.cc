// The data-race property end to end: a policy that touches its cached block
// outside its lock is reported by every way of searching (DPOR, random,
// a replay of either's schedule), and the policies that keep their state
// under their locks are not, exhaustively, on small cases.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/catalogue.h"
#include "properties/explore.h"
#include "properties/scenarios.h"
#include "sim/strategies/strict_sequence_strategy.h"
#include "tests/properties/racy_policy.h"

namespace stackcheck::properties {
namespace {

Case Regions(int threads, int regions, bool abort) {
  Case c;
  c.scenario = RegionsScenario(threads, regions, abort);
  return c;
}

ExploreReport Search(const Case& c, const PolicyInfo& policy, const std::string& strategy,
                     std::uint64_t max_executions = 0) {
  ExploreSpec spec;
  spec.test_case = c;
  spec.policy = &policy;
  spec.strategy = strategy;
  spec.strategy_params.preemption_bound = -1;
  spec.strategy_params.seed = 7;
  spec.max_executions = max_executions;
  spec.monitors = MonitorSelection::Named({"data-race"});
  return Explore(spec);
}

// Replays `finding` strictly, as `stackcheck replay` does.
void ExpectReplays(const Case& c, const PolicyInfo& policy, const Finding& finding) {
  const PropertyInfo* const checked[] = {FindProperty("data-race")};
  sim::StrictSequenceStrategy schedule(finding.schedule);
  absl::StatusOr<Execution> e = Execute(c, policy, checked, &schedule);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_TRUE(schedule.Finish().ok()) << schedule.status();
  ASSERT_TRUE(e->violation.has_value()) << "the race did not recur";
  EXPECT_EQ(e->violation->property, "data-race");
  EXPECT_EQ(e->violation->message, finding.violation.message);
}

TEST(DataRaceTest, DporReportsTheRacyPolicyAndTheReportReplays) {
  const Case c = Regions(2, 1, false);
  const ExploreReport r = Search(c, testing::RacyGrowPolicy(), "dfs");
  ASSERT_TRUE(r.status.ok()) << r.status;
  const Finding* f = r.FindingFor("data-race");
  ASSERT_NE(f, nullptr) << "DPOR missed the race after " << r.executions << " executions";
  // Both accesses are named, one of them made without the lock.
  EXPECT_TRUE(absl::StrContains(f->violation.message, "'stacks block'")) << f->violation.message;
  EXPECT_TRUE(absl::StrContains(f->violation.message, "unguarded")) << f->violation.message;
  EXPECT_EQ(r.reduction, "dpor + sleep sets");
  ExpectReplays(c, testing::RacyGrowPolicy(), *f);
}

TEST(DataRaceTest, RandomSchedulesReportTheRacyPolicyAndTheReportReplays) {
  const Case c = Regions(2, 2, false);
  const ExploreReport r = Search(c, testing::RacyGrowPolicy(), "random", 2000);
  ASSERT_TRUE(r.status.ok()) << r.status;
  const Finding* f = r.FindingFor("data-race");
  ASSERT_NE(f, nullptr) << "no race in " << r.executions << " random executions";
  ExpectReplays(c, testing::RacyGrowPolicy(), *f);
}

// Policies whose shared state stays under their locks (event-fence's books
// and block, V0's per-region block) have no race in any schedule; GCC 11's
// V2 has none either on these cases, whose only close comes after the joins
// or from the thread that holds the stacks lock.
TEST(DataRaceTest, LockedPoliciesHaveNoRaceInAnySchedule) {
  for (const char* name : {"v0-nocache", "v2-gcc11", "event-fence", "event-fence-sync"}) {
    const PolicyInfo* policy = FindPolicy(name);
    ASSERT_NE(policy, nullptr) << name;
    for (bool abort : {false, true}) {
      const ExploreReport r = Search(Regions(2, 1, abort), *policy, "dfs");
      ASSERT_TRUE(r.status.ok()) << name << ": " << r.status;
      EXPECT_TRUE(r.exhausted) << name;
      EXPECT_EQ(r.FindingFor("data-race"), nullptr) << name << (abort ? " with an abort: " : ": ")
                                                    << r.FindingFor("data-race")->violation.message;
    }
  }
}

// V1a's callback runs code without the stacks lock that another thread's run
// races with: it reads the last region launched after unlocking, and its
// fatal error closes the device (freeing the block) on the callback thread.
TEST(DataRaceTest, V1aCallbackRacesWithAnotherThreadsRun) {
  const ExploreReport r = Search(Regions(2, 1, true), *FindPolicy("v1a-callback-unlock"), "dfs");
  ASSERT_TRUE(r.status.ok()) << r.status;
  const Finding* f = r.FindingFor("data-race");
  ASSERT_NE(f, nullptr) << "after " << r.executions << " executions";
  EXPECT_TRUE(absl::StrContains(f->violation.message, "callback")) << f->violation.message;
}

}  // namespace
}  // namespace stackcheck::properties
