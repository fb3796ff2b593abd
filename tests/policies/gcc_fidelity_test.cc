// The runtime and policy models against GCC's code, one sequential test per
// behaviour the models once got wrong. Each names the GCC function it rests
// on (libgomp/target.c, libgomp/plugin/plugin-nvptx.c, GCC 12.2).
#include <string>

#include "gtest/gtest.h"
#include "tests/policies/policy_test_util.h"

namespace stackcheck::testing {
namespace {

bool Contains(const std::string& text, absl::string_view part) {
  return text.find(std::string(part)) != std::string::npos;
}

// GOMP_OFFLOAD_alloc: after *any* failed cuMemAlloc the stacks cache is
// freed and the allocation tried once more; the result, NULL included, goes
// to the caller, which for omp_target_alloc is the program.
TEST(GccFidelityTest, V2AllocationRetriesAfterAFailureAndReturnsNull) {
  FakeDeviceOptions options;
  options.capacity = 64 * kMiB;
  Harness h("v2-gcc11", options);
  h.runtime->Run(Region(1, 8, 8));  // 8 MiB cached
  ASSERT_EQ(h.runtime->CachedBytes(), 8 * kMiB);
  // 60 MiB fits only once the cache is given back.
  EXPECT_NE(h.runtime->DeviceAlloc(60 * kMiB), 0u);
  EXPECT_EQ(h.runtime->CachedBytes(), 0u);
  EXPECT_TRUE(h.observer.Probed("oom-retry"));
  // Nothing fits now: NULL, printed, not fatal.
  EXPECT_EQ(h.runtime->DeviceAlloc(60 * kMiB), 0u);
  EXPECT_TRUE(h.observer.fatals.empty());
  ASSERT_FALSE(h.observer.errors.empty());
  EXPECT_TRUE(Contains(h.observer.errors.back().message, "cuMemAlloc"));
}

// gomp_map_vars: a failed allocation during mapping is fatal ("device memory
// allocation fail"), raised after gomp_mutex_unlock (&devicep->lock), so the
// exit handler (gomp_target_fini) can take the device lock. Raised with the
// lock held, the fake host would report the handler's relock as a hang.
TEST(GccFidelityTest, MappingFailureIsFatalAfterTheDeviceLockIsReleased) {
  FakeDeviceOptions options;
  options.capacity = 64 * kMiB;
  Harness h("v2-gcc11", options);
  ASSERT_NE(h.runtime->DeviceAlloc(64 * kMiB), 0u);  // the device is full
  RegionSpec region = Region(1, 1, 1);
  region.mapped_vars = 1;
  EXPECT_THROW(h.runtime->Run(region), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 1u);
  EXPECT_EQ(h.observer.fatals[0].message, "device memory allocation fail");
  EXPECT_EQ(h.Violations(), "");
}

// A region maps its variables (one block, copied in), runs, and unmaps (copy
// back, free): gomp_map_vars / gomp_unmap_vars around GOMP_OFFLOAD_run.
TEST(GccFidelityTest, RegionMapsRunsAndUnmaps) {
  Harness h("v2-gcc11");
  RegionSpec region = Region(1, 2, 2);
  region.mapped_vars = 2;
  h.runtime->Run(region);
  EXPECT_EQ(h.device.calls(DriverCall::kMemcpyHtoD), 3u);  // two variables, the table
  EXPECT_EQ(h.device.calls(DriverCall::kMemcpyDtoH), 2u);
  EXPECT_EQ(h.device.live_allocations(), 1u);  // only the cached stacks
  h.ExitNormally();
  EXPECT_EQ(h.Violations(), "");
}

// nvptx_close_device destroys the stacks lock while the exiting thread holds
// it (a fatal error in GOMP_OFFLOAD_run keeps it held): glibc's
// pthread_mutex_destroy returns EBUSY and the mutex stays locked.
TEST(GccFidelityTest, V2DestroysTheHeldStacksLockAndItStaysLocked) {
  Harness h("v2-gcc11");
  EXPECT_THROW(h.runtime->Run(Region(1, 2, 2, /*aborts=*/true)), ProcessExited);
  EXPECT_TRUE(Contains(h.Violations(), "stacks lock destroyed while held")) << h.Violations();
}

// nvptx_close_device stops at the first failing driver call (CUDA_CALL
// returns false): after an abort its cuMemFree fails, so the context is not
// destroyed, and gomp_target_fini raises "device finalization failed" - exit()
// again, from inside the exit handler. The region's own message carries
// libgomp's hint (GOMP_OFFLOAD_run's cuCtxSynchronize).
TEST(GccFidelityTest, CloseStopsAtTheFirstFailureAndExitsAgain) {
  Harness h("v2-gcc11");
  EXPECT_THROW(h.runtime->Run(Region(1, 2, 2, /*aborts=*/true)), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 2u);
  EXPECT_EQ(h.observer.fatals[0].message,
            "cuCtxSynchronize error: unspecified launch failure (perhaps abort was called)");
  EXPECT_EQ(h.observer.fatals[1].message, "device finalization failed");
  EXPECT_EQ(h.host.exit_calls(), 2);
  EXPECT_EQ(h.device.calls(DriverCall::kCtxDestroy), 0u);
  EXPECT_EQ(h.device.calls(DriverCall::kModuleUnload), 0u);  // images stay loaded
}

// Only GOMP_OFFLOAD_run's wait adds "(perhaps abort was called)": any other
// call that meets the abort's sticky error prints the bare driver message.
TEST(GccFidelityTest, OnlyTheRegionWaitCarriesTheAbortHint) {
  EXPECT_EQ(RuntimeContext::CallErrorMessage(DriverCall::kMemAlloc, CuResult::kLaunchFailed),
            "cuMemAlloc error: unspecified launch failure");
  EXPECT_EQ(RuntimeContext::CallErrorMessage(DriverCall::kCtxSynchronize, CuResult::kLaunchFailed,
                                             /*abort_hint=*/true),
            "cuCtxSynchronize error: unspecified launch failure (perhaps abort was called)");
  // A copy names the versioned export, as GCC's CUDA_CALL macro expands it.
  EXPECT_EQ(RuntimeContext::CallErrorMessage(DriverCall::kMemcpyHtoD, CuResult::kLaunchFailed),
            "cuMemcpyHtoD_v2 error: unspecified launch failure");
}

// nvptx_do_global_cdtors (trunk): the plain entry name is looked up first,
// then, on NOT_FOUND, the "__mgomp" variant, which takes the stacks lock.
TEST(GccFidelityTest, V3LooksTheConstructorUpBeforeTakingTheLock) {
  Harness h("v3-trunk", {}, /*ctors=*/true, /*dtors=*/true);
  // Load: the runtime's own look-ups (region kernel, variant) and V3's two.
  EXPECT_EQ(h.device.calls(DriverCall::kModuleGetFunction), 4u);
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 1u);
  h.ExitNormally();
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 2u);  // the destructor
  EXPECT_EQ(h.Violations(), "");
}

// After a kernel trap every cuModuleGetFunction returns 719 (measured on the
// H200): the destructor path fails before it takes the stacks lock, so an
// abort does not hang trunk at exit through the destructors.
TEST(GccFidelityTest, V3DestructorLookUpFailsAfterAnAbortWithoutTheLock) {
  Harness h("v3-trunk", {}, /*ctors=*/false, /*dtors=*/true);
  EXPECT_THROW(h.runtime->Run(Region(1, 1, 1, /*aborts=*/true)), ProcessExited);
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 1u);  // no destructor launched
  ASSERT_EQ(h.observer.fatals.size(), 2u);
  EXPECT_EQ(h.observer.fatals[1].message, "device finalization failed");
}

// B1 as trunk has it: a fatal error under the stacks lock on a healthy
// context (here a rejected launch) exits; close runs the "__mgomp"
// destructor, which locks the stacks lock this thread still holds.
TEST(GccFidelityTest, V3RejectedLaunchThenDestructorRelocksTheStacksLock) {
  FakeDeviceOptions options;
  options.fail_launch_at_call = 1;
  Harness h("v3-trunk", options, /*ctors=*/false, /*dtors=*/true);
  try {
    h.runtime->Run(Region(1, 1, 1));
    FAIL() << "the rejected launch must be fatal";
  } catch (const HostHang& hang) {
    EXPECT_TRUE(Contains(hang.what(), "stacks lock relocked by its owner")) << hang.what();
  } catch (const ProcessExited&) {
    FAIL() << "exited without the destructor's relock";
  }
}

// A runtime opened but not yet loaded, for tests whose load itself fails.
struct Unloaded {
  explicit Unloaded(const std::string& policy, FakeDeviceOptions options = {})
      : device(host, options) {
    runtime =
        std::make_unique<Runtime>(device, host, observer, *FindPolicy(policy), RuntimeOptions{});
    runtime->OpenDevice();
  }
  FakeHost host;
  FakeDevice device;
  RecordingObserver observer;
  std::unique_ptr<Runtime> runtime;
};

// nvptx_do_global_cdtors (trunk) gets the "__mgomp" variant's block from
// nvptx_stacks_acquire, whose failed cuMemAlloc is fatal with the stacks lock
// held - at image load, with libgomp's device lock held too
// (GOMP_OFFLOAD_load_image under gomp_init_device). The exit handler,
// gomp_target_fini, then waits for the device lock its own thread holds.
TEST(GccFidelityTest, V3ConstructorStacksAllocationFailsUnderBothLocks) {
  FakeDeviceOptions options;
  options.fail_alloc_at_call = 1;  // the constructor's one-warp block
  Unloaded u("v3-trunk", options);
  try {
    u.runtime->LoadImage(/*ctors=*/true, /*dtors=*/false);
    FAIL() << "the failed stacks allocation must be fatal";
  } catch (const HostHang& hang) {
    EXPECT_TRUE(Contains(hang.what(), "device lock relocked by its owner")) << hang.what();
  } catch (const ProcessExited&) {
    FAIL() << "exited: the fatal error was raised without the device lock";
  }
  ASSERT_EQ(u.observer.fatals.size(), 1u);
  EXPECT_TRUE(Contains(u.observer.fatals[0].message, "cuMemAlloc error"))
      << u.observer.fatals[0].message;
}

// gomp_init_device marks the device initialised only after its images load:
// when a constructor fails (here its launch is rejected, which
// nvptx_do_global_cdtors reports), gomp_target_fini finalises nothing - no
// destructor, no cuCtxDestroy - and only the load's fatal error is raised.
TEST(GccFidelityTest, FailedConstructorLeavesTheDeviceUnfinalised) {
  FakeDeviceOptions options;
  options.fail_launch_at_call = 1;  // the constructor's launch
  Unloaded u("v3-trunk", options);
  EXPECT_THROW(u.runtime->LoadImage(/*ctors=*/true, /*dtors=*/true), ProcessExited);
  EXPECT_EQ(u.device.calls(DriverCall::kLaunchKernel), 1u);  // no destructor
  // nvptx_do_global_cdtors synchronises the stream after a rejected launch too.
  EXPECT_EQ(u.device.calls(DriverCall::kStreamSynchronize), 1u);
  EXPECT_EQ(u.device.calls(DriverCall::kCtxDestroy), 0u);
  ASSERT_EQ(u.observer.fatals.size(), 1u);
  EXPECT_EQ(u.observer.fatals[0].message, "Cannot map target functions or variables");
}

// nvptx_close_device (trunk) goes on after a failed destructor: it frees the
// stacks block, destroys the context, and reports the failure last, which
// gomp_target_fini raises as "device finalization failed".
TEST(GccFidelityTest, V3FailedDestructorStillDestroysTheContext) {
  FakeDeviceOptions options;
  options.fail_launch_at_call = 2;  // after one region: the destructor's launch
  Harness h("v3-trunk", options, /*ctors=*/false, /*dtors=*/true);
  h.runtime->Run(Region(1, 1, 1));
  EXPECT_THROW(h.host.Exit(0), ProcessExited);
  EXPECT_EQ(h.device.calls(DriverCall::kCtxDestroy), 1u);
  ASSERT_EQ(h.observer.fatals.size(), 1u);
  EXPECT_EQ(h.observer.fatals[0].message, "device finalization failed");
}

// omp_target_alloc on a device gomp_target_fini finalized returns NULL.
TEST(GccFidelityTest, AllocationAfterCloseReturnsNull) {
  Harness h("v2-gcc11");
  h.ExitNormally();
  EXPECT_EQ(h.runtime->DeviceAlloc(kMiB), 0u);
}

}  // namespace
}  // namespace stackcheck::testing
