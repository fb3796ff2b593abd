// The executor runs a case on the simulator: simple cases behave as the
// policies promise, and the recorded schedule replays to the same trace.
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/generators.h"
#include "sim/strategies/random_strategy.h"

namespace stackcheck::properties {
namespace {

Case OneThread(std::vector<RegionSpec> regions) {
  Case c;
  c.scenario.threads.resize(1);
  for (const RegionSpec& r : regions) {
    c.scenario.threads[0].ops.push_back(HostOp::Run(r));
  }
  c.scenario.device_capacity = 32 * kUnit;
  c.scenario.soft_limit = 4 * kUnit;
  NumberRegions(c.scenario);
  return c;
}

RegionSpec Region(std::uint32_t teams, bool aborts = false) {
  RegionSpec r;
  r.teams = teams;
  r.stack_size_per_warp = kUnit;
  r.aborts = aborts;
  return r;
}

TEST(Executor, PlainRegionsHoldUnderV2) {
  const PolicyInfo* v2 = FindPolicy("v2-gcc11");
  ASSERT_NE(v2, nullptr);
  absl::StatusOr<Execution> e = Execute(OneThread({Region(1), Region(2)}), *v2, SimProperties());
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(e->violation.has_value()) << e->violation->property << ": " << e->violation->message;
  EXPECT_TRUE(e->process_exited);
}

TEST(Executor, AbortingRegionExitsUnderV2) {
  const PolicyInfo* v2 = FindPolicy("v2-gcc11");
  ASSERT_NE(v2, nullptr);
  // Only abort-attribution: V2 also destroys the stacks mutex while the fatal
  // path still holds it, which mutex-discipline would report first.
  const PropertyInfo* const attribution[] = {FindProperty("abort-attribution")};
  absl::StatusOr<Execution> e = Execute(OneThread({Region(1, true)}), *v2, attribution);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(e->violation.has_value()) << e->violation->property << ": " << e->violation->message;
  EXPECT_TRUE(e->process_exited);
  EXPECT_NE(e->exit_status, 0);
}

TEST(Executor, DeviceAllocFailureExits) {
  for (const PolicyInfo& policy : AllPolicies()) {
    Case c;
    c.scenario.threads.resize(1);
    c.scenario.threads[0].ops.push_back(HostOp::DeviceAlloc(kUnit, /*slot=*/0));
    c.scenario.faults.alloc_failure_at_call = 1;
    absl::StatusOr<Execution> e = Execute(c, policy, SimProperties());
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_TRUE(e->process_exited) << policy.name;
  }
}

TEST(Executor, RecordedScheduleReplaysExactly) {
  const rc::Gen<Case> gen = GenCase();
  int compared = 0;
  for (const PolicyInfo& policy : AllPolicies()) {
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      Case c = CaseForSeed(gen, seed);
      ++compared;
      sim::RandomStrategy::Options o;
      o.seed = seed;
      o.max_executions = 1;
      sim::RandomStrategy random(o);
      absl::StatusOr<Execution> first = Execute(c, policy, SimProperties(), &random);
      ASSERT_TRUE(first.ok()) << first.status();
      c.schedule = first->schedule;
      absl::StatusOr<Execution> again = Execute(c, policy, SimProperties());
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(first->digest, again->digest) << policy.name << " seed " << seed;
      EXPECT_EQ(first->violation.has_value(), again->violation.has_value());
    }
  }
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace stackcheck::properties
