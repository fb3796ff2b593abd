// The finalized-device window, one sequential test per path: a thread has
// resolved the device (resolve_device, libgomp/target.c) when another
// thread's exit finalizes it (gomp_target_fini), and then goes on. GCC 12.2
// as shipped (RuntimeOptions::shipped_target) against the default runtime,
// which looks at the state again as gcc/patches/0003 does. The other thread's
// step is put into the window by FakeHost::AfterNextUnlock: right after the
// look-up's section of the device lock.
#include <csignal>
#include <string>

#include "gtest/gtest.h"
#include "tests/policies/policy_test_util.h"

namespace stackcheck::testing {
namespace {

constexpr ThreadId kExitingThread = 7;

RuntimeOptions Shipped() {
  RuntimeOptions options;
  options.shipped_target = true;
  return options;
}

RegionSpec Mapped(RegionId id) {
  RegionSpec region = Region(id, 1, 1);
  region.mapped_vars = 1;
  return region;
}

// After the next section of the device lock, another thread's exit handler
// finalizes the device on a healthy context: the close succeeds, and
// GOMP_OFFLOAD_fini_device frees the plugin's device table.
void CloseInTheWindow(Harness& h) {
  h.host.AfterNextUnlock(
      "device lock", [&h] { h.host.RunAs(kExitingThread, [&h] { h.runtime->CloseDevice(); }); });
}

// The same after a trap on the other thread: its fatal error exits. Where
// the plugin caches a block the close fails (nvptx_close_device's cuMemFree
// meets the sticky error), so the table keeps the device, and
// gomp_target_fini raises "device finalization failed" on that thread.
void TrapAndCloseInTheWindow(Harness& h) {
  h.host.AfterNextUnlock("device lock", [&h] {
    h.host.RunAs(kExitingThread, [&h] {
      try {
        // A policy that does not wait for its kernel meets the trap at the
        // next region's first driver call.
        h.runtime->Run(Region(9, 1, 1, /*aborts=*/true));
        h.runtime->Run(Region(10, 1, 1));
        ADD_FAILURE() << "the trap raised no fatal error";
      } catch (const ProcessExited&) {
      }
    });
  });
}

bool Contains(const std::string& text, absl::string_view part) {
  return text.find(std::string(part)) != std::string::npos;
}

int CrashSignal(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ProcessCrashed& crash) {
    return crash.signal;
  }
  return 0;
}

// GOMP_target_ext: gomp_map_vars_internal finds the device finalized and
// returns NULL; GCC 12.2 calls devicep->run_func all the same, and
// GOMP_OFFLOAD_run reads ptx_devices[ord] from the table
// GOMP_OFFLOAD_fini_device freed: SIGSEGV (GOMP_OFFLOAD_run+0x38 in Debian's
// plugin, measured on an H100).
TEST(FinalizedDeviceTest, ShippedRegionMappingOnAClosedDeviceCrashes) {
  Harness h("v2-gcc11", {}, false, false, Shipped());
  CloseInTheWindow(h);
  EXPECT_EQ(CrashSignal([&] { h.runtime->Run(Mapped(1)); }), SIGSEGV);
  EXPECT_TRUE(h.observer.begun.empty());
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 0u);
}

// 0003's GOMP_target_ext: a NULL from gomp_map_vars falls back to the host.
TEST(FinalizedDeviceTest, CheckedRegionMappingOnAClosedDeviceRunsOnTheHost) {
  Harness h("v2-gcc11");
  CloseInTheWindow(h);
  h.runtime->Run(Mapped(1));
  ASSERT_EQ(h.observer.begun.size(), 1u);
  EXPECT_EQ(h.observer.begun_needing[0], 0u);  // no stacks: nothing launched
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 0u);
  EXPECT_TRUE(h.observer.fatals.empty());
}

// The mapping finished first: the exiting thread's gomp_target_fini waited
// for the device lock the mapping held, and finalizes the device as soon as
// the mapping releases it. GOMP_target_ext calls run_func with the mapping
// it has, and GOMP_OFFLOAD_run faults: what `exec` finds in GCC's own plugin
// (threads_regions, oom@alloc:4,oom@alloc:5).
TEST(FinalizedDeviceTest, ShippedRegionWhoseMappingFinishedBeforeTheCloseCrashes) {
  Harness h("v2-gcc11", {}, false, false, Shipped());
  // The look-up's section first, then the mapping's.
  h.host.AfterNextUnlock("device lock", [&h] { CloseInTheWindow(h); });
  EXPECT_EQ(CrashSignal([&] { h.runtime->Run(Mapped(1)); }), SIGSEGV);
  EXPECT_EQ(h.device.calls(DriverCall::kMemcpyHtoD), 2u);  // the mapping was made
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 0u);
}

// A region that maps nothing: gomp_map_vars_internal returns before it takes
// the device lock, so nothing looks at the state; GOMP_OFFLOAD_run's read of
// ptx_devices faults.
TEST(FinalizedDeviceTest, ShippedRegionWithoutMappingOnAClosedDeviceCrashes) {
  Harness h("v3-trunk", {}, false, false, Shipped());
  CloseInTheWindow(h);
  EXPECT_EQ(CrashSignal([&] { h.runtime->Run(Region(1, 1, 1)); }), SIGSEGV);
}

// After a close that failed, GOMP_OFFLOAD_fini_device returned before it
// emptied the entry: GOMP_OFFLOAD_run goes on with the device. GCC 12.2's
// plugin (V2) raised the trap's fatal error in GOMP_OFFLOAD_run holding the
// stacks lock, which nvptx_close_device could not destroy (EBUSY): the
// region's nvptx_stacks_acquire waits for it for ever.
TEST(FinalizedDeviceTest, ShippedRegionAfterAFailedCloseWaitsForTheDeadThreadsLock) {
  Harness h("v2-gcc11", {}, false, false, Shipped());
  TrapAndCloseInTheWindow(h);
  try {
    h.runtime->Run(Mapped(1));
    FAIL() << "the region must wait for the stacks lock the trapped thread holds";
  } catch (const HostHang& hang) {
    EXPECT_TRUE(Contains(hang.what(), "waits for stacks lock, held by thread 7")) << hang.what();
  }
}

// A plugin without the stacks lock (V0, before the cache) caches nothing, so
// its close frees nothing and cuCtxDestroy succeeds on the context the trap
// lost: the table is freed, and the region's GOMP_OFFLOAD_run faults.
TEST(FinalizedDeviceTest, ShippedV0RegionAfterATrapAndItsCloseCrashes) {
  Harness h("v0-nocache", {}, false, false, Shipped());
  TrapAndCloseInTheWindow(h);
  EXPECT_EQ(CrashSignal([&] { h.runtime->Run(Mapped(1)); }), SIGSEGV);
  EXPECT_EQ(h.device.calls(DriverCall::kCtxDestroy), 1u);
}

TEST(FinalizedDeviceTest, CheckedRegionAfterAFailedCloseRunsOnTheHost) {
  Harness h("v2-gcc11");
  TrapAndCloseInTheWindow(h);
  h.runtime->Run(Mapped(1));
  EXPECT_EQ(h.observer.fatals.size(), 2u);  // the trap's and the close's
  EXPECT_EQ(h.observer.begun.back(), 1u);
  EXPECT_EQ(h.observer.begun_needing.back(), 0u);
}

// omp_target_alloc: resolve_device, then devicep->alloc_func under the
// device lock with no second look at the state; GOMP_OFFLOAD_alloc's
// nvptx_attach_host_thread_to_device reads ptx_devices[n].
TEST(FinalizedDeviceTest, ShippedTargetAllocOnAClosedDeviceCrashes) {
  Harness h("v2-gcc11", {}, false, false, Shipped());
  CloseInTheWindow(h);
  EXPECT_EQ(CrashSignal([&] { h.runtime->DeviceAlloc(kMiB); }), SIGSEGV);
}

// omp_target_free: gomp_free_device_memory calls devicep->free_func, and
// GOMP_OFFLOAD_free reaches ptx_devices[ord] the same way.
TEST(FinalizedDeviceTest, ShippedTargetFreeOnAClosedDeviceCrashes) {
  Harness h("v2-gcc11", {}, false, false, Shipped());
  const DevicePtr ptr = h.runtime->DeviceAlloc(kMiB);
  ASSERT_NE(ptr, 0u);
  CloseInTheWindow(h);
  EXPECT_EQ(CrashSignal([&] { h.runtime->DeviceFree(ptr); }), SIGSEGV);
}

// resolve_device itself returns NULL for a device finalized before the
// call: omp_target_alloc returns NULL, a region runs on the host. (The
// default runtime's omp_target_alloc and omp_target_free take the device
// lock once and look at the state under it, as 0003 makes them: no window.)
TEST(FinalizedDeviceTest, ShippedCallsAfterTheCloseFallBackAtTheLookUp) {
  Harness h("v2-gcc11", {}, false, false, Shipped());
  h.ExitNormally();
  EXPECT_EQ(h.runtime->DeviceAlloc(kMiB), 0u);
  h.runtime->Run(Mapped(1));
  EXPECT_EQ(h.observer.begun_needing.back(), 0u);
}

}  // namespace
}  // namespace stackcheck::testing
