#include "hardware/hardware_runner.h"

#include "absl/strings/match.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/scenarios.h"
#include "real/cuda_entry_points.h"

namespace stackcheck::hardware {
namespace {

HardwareRunOptions Quick() {
  HardwareRunOptions o;
  o.watchdog = absl::Seconds(3);
  return o;
}

const PolicyInfo& Policy(absl::string_view name) {
  const PolicyInfo* p = FindPolicy(name);
  EXPECT_NE(p, nullptr) << name;
  return *p;
}

// Without a driver the forked child says why and the run is "setup failed"
// with the loader's line: the campaign reports it instead of crashing.
TEST(HardwareRunnerTest, WithoutDriverTheRunSaysWhy) {
  if (real::LoadDriver().ok()) GTEST_SKIP() << "a driver is present";
  absl::StatusOr<HardwareRunResult> r = RunOnHardware(
      properties::FindHardwareScenario("one-region")->scenario, Policy("v2-gcc11"), Quick());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ending, HardwareRunResult::Ending::kSetupFailed);
  EXPECT_TRUE(absl::StartsWith(r->setup_error, "no CUDA driver: ")) << r->setup_error;
  EXPECT_TRUE(r->properties.empty());
}

TEST(HardwareScenariosTest, RegionIdsAreUniqueAndPositive) {
  for (const properties::NamedScenario& s : properties::HardwareScenarios()) {
    std::vector<RegionId> ids;
    for (const ThreadProgram& t : s.scenario.threads) {
      for (const HostOp& op : t.ops) {
        if (op.kind != HostOp::Kind::kRun) continue;
        EXPECT_NE(op.region.id, kNoRegion) << s.name;
        for (RegionId seen : ids) EXPECT_NE(seen, op.region.id) << s.name;
        ids.push_back(op.region.id);
      }
    }
    EXPECT_FALSE(ids.empty()) << s.name;
    EXPECT_LE(s.scenario.threads.size(), 4u) << s.name;
  }
}

class HardwareRunnerGpuTest : public testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<const real::CudaEntryPoints*> api = real::LoadDriver();
    if (!api.ok()) GTEST_SKIP() << api.status().message();
  }
};

TEST_F(HardwareRunnerGpuTest, V2HoldsOnOneRegion) {
  absl::StatusOr<HardwareRunResult> r = RunOnHardware(
      properties::FindHardwareScenario("one-region")->scenario, Policy("v2-gcc11"), Quick());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->ending, HardwareRunResult::Ending::kExited) << r->EndingText();
  EXPECT_EQ(r->exit_status, 0);
  for (const PropertyResult& p : r->properties) {
    EXPECT_NE(p.verdict, HwVerdict::kViolated) << p.property << ": " << p.evidence;
  }
}

TEST_F(HardwareRunnerGpuTest, V1bDeadlocksWhenTheBlockGrowsAndTheWatchdogSaysWhere) {
  absl::StatusOr<HardwareRunResult> r =
      RunOnHardware(properties::FindHardwareScenario("grow-while-busy")->scenario,
                    Policy("v1b-callback-lock"), Quick());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ending, HardwareRunResult::Ending::kWatchdog) << r->EndingText();
  ASSERT_NE(r->Find("no-deadlock"), nullptr);
  EXPECT_EQ(r->Find("no-deadlock")->verdict, HwVerdict::kViolated);
  EXPECT_TRUE(absl::StrContains(r->Find("no-deadlock")->evidence, "lock("))
      << r->Find("no-deadlock")->evidence;
}

TEST_F(HardwareRunnerGpuTest, AbortIsAttributedByV2) {
  absl::StatusOr<HardwareRunResult> r = RunOnHardware(
      properties::FindHardwareScenario("abort")->scenario, Policy("v2-gcc11"), Quick());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->ending, HardwareRunResult::Ending::kExited) << r->EndingText();
  EXPECT_EQ(r->exit_status, 1);
  EXPECT_EQ(r->Find("abort-attribution")->verdict, HwVerdict::kHolds)
      << r->Find("abort-attribution")->evidence;
}

}  // namespace
}  // namespace stackcheck::hardware
