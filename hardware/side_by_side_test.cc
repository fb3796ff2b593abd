#include "hardware/side_by_side.h"

#include <functional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "core/policies/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/hardware_runner.h"
#include "hardware/steered_replay.h"
#include "properties/catalogue.h"
#include "properties/scenarios.h"

namespace stackcheck::hardware {
namespace {

using ::testing::HasSubstr;

// A stand-in GPU: every run ends normally and violates `violated(options)`;
// every other property it judges holds.
HardwareRunFn FakeGpu(std::function<std::set<std::string>(const HardwareRunOptions&)> violated) {
  return [violated](const Scenario&, const PolicyInfo&,
                    const HardwareRunOptions& options) -> absl::StatusOr<HardwareRunResult> {
    HardwareRunResult r;
    r.ending = HardwareRunResult::Ending::kExited;
    const std::set<std::string> bad = violated(options);
    for (const properties::PropertyInfo& p : properties::AllProperties()) {
      PropertyResult pr;
      pr.property = std::string(p.name);
      if (!HardwareObserves(p.name)) {
        pr.verdict = HwVerdict::kNotObserved;
      } else if (bad.count(pr.property) > 0) {
        pr.verdict = HwVerdict::kViolated;
        pr.evidence = "fake evidence";
      } else {
        pr.verdict = HwVerdict::kHolds;
      }
      r.properties.push_back(pr);
    }
    return r;
  };
}

bool Steered(const HardwareRunOptions& o) {
  return !o.spawn_delays.empty() || o.min_kernel_duration > absl::ZeroDuration();
}

SideBySideOptions Options(const char* policy, const char* scenario) {
  SideBySideOptions o;
  o.policies = {FindPolicy(policy)};
  o.scenarios = {properties::FindHardwareScenario(scenario)};
  o.hardware_repeat = 2;
  o.sim_executions = 20;
  o.steer_runs = 2;
  return o;
}

const PropertyComparison& Row(const SideBySideResult& r, const std::string& property) {
  for (const PropertyComparison& c : r.outcomes.at(0).comparisons) {
    if (c.property == property) return c;
  }
  static const PropertyComparison none;
  ADD_FAILURE() << "no row for " << property;
  return none;
}

TEST(SideBySide, HealthyGpuAgreesWithTheSimulator) {
  // V1b on grow-while-busy: the GPU hangs (reported as both no-deadlock and
  // progress) in its free runs; the early-return deviation shows once the
  // kernels are stretched by the steering.
  SideBySideOptions o = Options("v1b-callback-lock", "grow-while-busy");
  o.run_on_hardware = FakeGpu([](const HardwareRunOptions& run) {
    std::set<std::string> v = {"no-deadlock", "progress"};
    if (Steered(run)) v.insert("sync-completion");
    return v;
  });
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(BackendsDisagree(*r)) << FormatComparison(*r);
  EXPECT_EQ(Row(*r, "no-deadlock").comparison.status, RowStatus::kConfirmed);
  // The simulator names the hang a deadlock; the GPU's progress row is the
  // same observation.
  EXPECT_EQ(Row(*r, "progress").comparison.status, RowStatus::kConfirmed);
  const PropertyComparison& sync = Row(*r, "sync-completion");
  EXPECT_EQ(sync.comparison.status, RowStatus::kConfirmed);
  EXPECT_THAT(sync.comparison.text, HasSubstr("steered 2 of 2"));
  EXPECT_EQ(Row(*r, "no-stack-overlap").comparison.status, RowStatus::kHoldsOnBoth);
  EXPECT_EQ(Row(*r, "no-use-after-free").comparison.status, RowStatus::kNotObservable);
  const std::string table = FormatComparison(*r);
  EXPECT_THAT(table, HasSubstr("confirmed on hardware"));
  EXPECT_THAT(table, Not(HasSubstr("MISMATCH")));
}

TEST(SideBySide, SteerableCounterexampleTheGpuDoesNotReproduceDisagrees) {
  SideBySideOptions o = Options("v1b-callback-lock", "grow-while-busy");
  o.run_on_hardware = FakeGpu([](const HardwareRunOptions&) { return std::set<std::string>{}; });
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(BackendsDisagree(*r));
  const PropertyComparison& deadlock = Row(*r, "no-deadlock");
  EXPECT_EQ(deadlock.comparison.status, RowStatus::kNotReproduced);
  EXPECT_THAT(deadlock.comparison.text, HasSubstr("steered 0 of 2"));
  EXPECT_THAT(FormatComparison(*r), HasSubstr("MISMATCH"));
}

TEST(SideBySide, WithoutSteeringAMissedViolationIsOnlyNotReached) {
  SideBySideOptions o = Options("v1b-callback-lock", "grow-while-busy");
  o.steer_runs = 0;
  o.run_on_hardware = FakeGpu([](const HardwareRunOptions&) { return std::set<std::string>{}; });
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(BackendsDisagree(*r));
  const PropertyComparison& deadlock = Row(*r, "no-deadlock");
  EXPECT_EQ(deadlock.comparison.status, RowStatus::kNotReached);
  EXPECT_THAT(deadlock.comparison.text, HasSubstr("not reached (sim: VIOLATED, token sc1."));
}

TEST(SideBySide, UnsteerableCounterexampleIsNoMismatch) {
  // V1b loses the abort only if the callback is kept from a released lock
  // until the process exits: the runner cannot hold a callback inside.
  SideBySideOptions o = Options("v1b-callback-lock", "abort");
  o.run_on_hardware = FakeGpu([](const HardwareRunOptions& run) {
    std::set<std::string> v;
    if (Steered(run)) v.insert("sync-completion");
    return v;
  });
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  const PropertyComparison& abort = Row(*r, "abort-attribution");
  EXPECT_EQ(abort.comparison.status, RowStatus::kNotSteerable);
  EXPECT_THAT(abort.comparison.text, HasSubstr("not steerable: the schedule keeps"));
}

TEST(SideBySide, GpuViolationTheExhaustiveSearchRulesOutDisagrees) {
  SideBySideOptions o = Options("v2-gcc11", "one-region");
  o.run_on_hardware =
      FakeGpu([](const HardwareRunOptions&) { return std::set<std::string>{"no-stack-overlap"}; });
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(BackendsDisagree(*r));
  const PropertyComparison& overlap = Row(*r, "no-stack-overlap");
  EXPECT_EQ(overlap.comparison.status, RowStatus::kHardwareOnly);
  EXPECT_TRUE(overlap.sim.exhaustive);
  EXPECT_THAT(overlap.comparison.text, HasSubstr("exhaustive DPOR"));
  EXPECT_THAT(overlap.comparison.text, HasSubstr("2 of 2 runs"));
}

TEST(SideBySide, GpuViolationHiddenByAnotherPropertyIsSearchedAlone) {
  // V3's B1 hang: the scenario's search stops every execution at the
  // relock (mutex-discipline); searched with no-deadlock alone, the
  // simulator finds the hang the GPU shows.
  SideBySideOptions o = Options("v3-trunk", "rejected-launch-with-destructors");
  o.run_on_hardware = FakeGpu([](const HardwareRunOptions&) {
    return std::set<std::string>{"no-deadlock", "progress", "mutex-discipline"};
  });
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcomes.at(0).sim_targeted.count("no-deadlock"), 1u);
  EXPECT_EQ(Row(*r, "no-deadlock").comparison.status, RowStatus::kConfirmed)
      << Row(*r, "no-deadlock").comparison.text;
  EXPECT_EQ(Row(*r, "mutex-discipline").comparison.status, RowStatus::kConfirmed);
}

TEST(SideBySide, SimulatorColumnAloneHasNoComparison) {
  SideBySideOptions o = Options("v2-gcc11", "two-threads");
  o.hardware = false;
  absl::StatusOr<SideBySideResult> r = RunSideBySide(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->outcomes.at(0).comparisons.empty());
  EXPECT_FALSE(BackendsDisagree(*r));
  EXPECT_TRUE(r->outcomes.at(0).sim_search.exhausted);
  EXPECT_EQ(r->table.columns.size(), 1u);
}

}  // namespace
}  // namespace stackcheck::hardware
