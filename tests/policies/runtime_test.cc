// The runtime's lifecycle, its bad-input paths, and the scenario runner, on
// the sequential fake backend.
#include <string>

#include "core/scenario_runner.h"
#include "gtest/gtest.h"
#include "tests/policies/policy_test_util.h"

namespace stackcheck::testing {
namespace {

TEST(RuntimeTest, UnknownPolicyIsAStatusListingTheKnownOnes) {
  FakeHost host;
  FakeDevice device(host);
  auto runtime = Runtime::Create(device, host, NullObserver(), "v9-future");
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(runtime.status().message().find("v2-gcc11"), absl::string_view::npos);
  EXPECT_TRUE(Runtime::Create(device, host, NullObserver(), "event-fence").ok());
}

TEST(RuntimeTest, FreeOfAPointerNeverAllocatedIsFatal) {
  Harness h("v2-gcc11");
  EXPECT_THROW(h.runtime->DeviceFree(0xdead0000), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 1u);
  EXPECT_EQ(h.observer.fatals[0].code, CuResult::kInvalidValue);
  EXPECT_NE(h.observer.fatals[0].message.find("0xdead0000"), std::string::npos);
}

TEST(RuntimeTest, DoubleFreeIsFatalAndFreeOfNullIsNot) {
  Harness h("event-fence");
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);
  h.runtime->DeviceFree(0);
  h.runtime->DeviceFree(p);
  EXPECT_EQ(h.runtime->UserBytesLive(), 0u);
  EXPECT_THROW(h.runtime->DeviceFree(p), ProcessExited);
}

TEST(RuntimeTest, AfterCloseRegionsFallBackToTheHostAndAllocReturnsNull) {
  Harness h("v2-gcc11");
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);
  h.runtime->CloseDevice();
  const std::uint32_t launches = h.device.calls(DriverCall::kLaunchKernel);
  h.runtime->Run(Region(1, 1, 1));
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), launches);
  EXPECT_EQ(h.observer.ended, std::vector<RegionId>{1});
  EXPECT_EQ(h.runtime->DeviceAlloc(kMiB), 0u);
  h.runtime->DeviceFree(p);  // reclaimed with the context: no driver call
  EXPECT_EQ(h.device.calls(DriverCall::kMemFree), 0u);
  EXPECT_TRUE(h.observer.fatals.empty());
}

TEST(RuntimeTest, RunBeforeLoadIsFatal) {
  FakeHost host;
  FakeDevice device(host);
  RecordingObserver observer;
  Runtime runtime(device, host, observer, *FindPolicy("v2-gcc11"));
  runtime.OpenDevice();
  EXPECT_THROW(runtime.Run(Region(1, 1, 1)), ProcessExited);
  ASSERT_EQ(observer.fatals.size(), 1u);
  EXPECT_EQ(observer.fatals[0].region, 1u);
}

TEST(RuntimeTest, BadGeometryIsFatalAgainstItsRegion) {
  Harness h("v2-gcc11");
  EXPECT_THROW(h.runtime->Run(Region(5, 1, 40)), ProcessExited);  // 1280 threads
  ASSERT_EQ(h.observer.fatals.size(), 1u);
  EXPECT_EQ(h.observer.fatals[0].region, 5u);
  EXPECT_EQ(h.observer.fatals[0].code, CuResult::kInvalidValue);
}

TEST(RuntimeTest, RegionsSayWhatTheyNeedAndDeviceAllocWhatTheCacheHolds) {
  Harness h("v2-gcc11");
  h.runtime->Run(Region(1, 2, 2));
  h.runtime->DeviceFree(h.runtime->DeviceAlloc(kMiB));
  EXPECT_EQ(h.observer.begun_needing, std::vector<std::uint64_t>{4 * kDefaultStackSizePerWarp});
  EXPECT_EQ(h.observer.cache_held, std::vector<std::uint64_t>{4 * kDefaultStackSizePerWarp});
}

Scenario TwoThreads() {
  Scenario s;
  s.threads.resize(2);
  HostOp run;
  run.region = Region(1, 4, 8);
  s.threads[0].ops.push_back(run);
  HostOp alloc;
  alloc.kind = HostOp::Kind::kDeviceAlloc;
  alloc.bytes = 2 * kMiB;
  alloc.slot = 0;
  s.threads[0].ops.push_back(alloc);
  s.threads[0].ops.push_back(alloc);  // the slot's old pointer is freed first
  run.region = Region(2, 150, 8);     // above the soft limit
  s.threads[1].ops.push_back(run);
  alloc.slot = 1;
  s.threads[1].ops.push_back(alloc);  // left for the end-of-thread free
  HostOp free_op;
  free_op.kind = HostOp::Kind::kDeviceFree;
  free_op.slot = 7;  // empty: a no-op
  s.threads[1].ops.push_back(free_op);
  return s;
}

TEST(ScenarioRunnerTest, EveryPolicyRunsAScenarioAndClosesThroughExit) {
  for (const PolicyInfo& info : AllPolicies()) {
    FakeHost host;
    FakeDevice device(host);
    RecordingObserver observer;
    try {
      RunScenario(TwoThreads(), device, host, observer, info);
      ADD_FAILURE() << info.name << ": RunScenario returned despite close_at_end";
    } catch (const ProcessExited& exit) {
      EXPECT_EQ(exit.status, 0) << info.name;
    }
    EXPECT_TRUE(device.destroyed()) << info.name;
    EXPECT_EQ(device.leaked_at_destroy(), 0u) << info.name;
    EXPECT_EQ(observer.begun, (std::vector<RegionId>{1, 2})) << info.name;
    EXPECT_EQ(observer.cache_held.size(), 3u) << info.name;
    EXPECT_EQ(device.completed_regions(), (std::vector<std::uint32_t>{1, 2})) << info.name;
  }
}

TEST(ScenarioRunnerTest, WithoutCloseAtEndTheDeviceStaysOpen) {
  Scenario s = TwoThreads();
  s.close_at_end = false;
  FakeHost host;
  FakeDevice device(host);
  RunScenario(s, device, host, NullObserver(), *FindPolicy("v2-gcc11"));
  EXPECT_FALSE(device.destroyed());
  EXPECT_FALSE(host.exited());
}

TEST(ScenarioRunnerTest, FaultPlanDrivesConstructorsAndAllocationFailure) {
  Scenario s = TwoThreads();
  s.faults.device_constructors = true;
  s.faults.device_destructors = true;
  s.faults.alloc_failure_at_call = 3;
  FakeHost host;
  FakeDeviceOptions options;
  options.fail_alloc_at_call = s.faults.alloc_failure_at_call;
  FakeDevice device(host, options);
  RecordingObserver observer;
  EXPECT_THROW(RunScenario(s, device, host, observer, *FindPolicy("v3-trunk")), ProcessExited);
  EXPECT_TRUE(observer.Probed("oom-retry"));
  EXPECT_TRUE(observer.fatals.empty());
  // constructors, two regions, destructors
  EXPECT_EQ(device.calls(DriverCall::kLaunchKernel), 4u);
  EXPECT_EQ(device.leaked_at_destroy(), 0u);
}

}  // namespace
}  // namespace stackcheck::testing
