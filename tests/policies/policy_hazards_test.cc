// The hazards each version carries on purpose, shown sequentially on the fake
// backend, and event-fence's answers to each of them. (The simulator explores
// the interleavings; these pin down the logic.)
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/policies/policy_test_util.h"

namespace stackcheck::testing {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(V0NoCacheTest, AbortIsFatalInItsOwnRegion) {
  Harness h("v0-nocache");
  h.runtime->Run(Region(1, 2, 2));
  EXPECT_THROW(h.runtime->Run(Region(2, 2, 2, /*aborts=*/true)), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 1u);
  EXPECT_EQ(h.observer.fatals[0].region, 2u);
  EXPECT_EQ(h.observer.fatals[0].code, CuResult::kLaunchFailed);
  EXPECT_TRUE(Contains(h.observer.fatals[0].message, "(perhaps abort was called)"));
  EXPECT_EQ(h.host.exit_status(), 1);
  EXPECT_TRUE(h.device.destroyed());  // the exit handler closed the device
  EXPECT_EQ(h.Violations(), "");
}

TEST(V1aCallbackUnlockTest, TheCallbackUnlocksAMutexItDoesNotOwn) {
  Harness h("v1a-callback-unlock");
  h.runtime->Run(Region(1, 2, 2));
  // The lock stays held after run: the kernel owns the block.
  EXPECT_EQ(h.device.completed_regions().size(), 0u);
  h.runtime->Run(Region(2, 2, 2));  // waits for the callback to unlock
  EXPECT_TRUE(Contains(h.Violations(), "stacks lock unlocked by thread 999, owned by thread 1"))
      << h.Violations();
  h.ExitNormally();
}

TEST(V1aCallbackUnlockTest, AbortIsRaisedFromTheCallbackThread) {
  Harness h("v1a-callback-unlock");
  h.runtime->Run(Region(1, 2, 2, /*aborts=*/true));
  EXPECT_TRUE(h.observer.fatals.empty()) << "run no longer sees the abort";
  EXPECT_THROW(h.runtime->Run(Region(2, 2, 2)), ProcessExited);
  // The callback's fatal error, then the close's "device finalization
  // failed" (its cuMemFree meets the sticky error).
  ASSERT_EQ(h.observer.fatals.size(), 2u);
  EXPECT_EQ(h.observer.fatals[0].region, 1u);
  EXPECT_TRUE(Contains(h.observer.fatals[0].message, "stream callback error"));
  // exit() on the driver's thread: the exit handler closes the device from
  // callback context, where driver calls are forbidden (SEM-09).
  EXPECT_TRUE(Contains(h.Violations(), "called from a stream callback")) << h.Violations();
}

TEST(V1aCallbackUnlockTest, CloseFreesUnderAQueuedKernelWhenFreeDoesNotWait) {
  FakeDeviceOptions options;
  options.free_waits = false;  // SEM-11's other mode
  Harness h("v1a-callback-unlock", options);
  h.runtime->Run(Region(4, 2, 2));
  h.ExitNormally();  // close frees the block without any wait
  EXPECT_TRUE(Contains(h.Violations(), "freed while the queued kernel of region 4 uses it"))
      << h.Violations();
}

TEST(V1bCallbackLockTest, GrowingWhileAKernelIsInFlightDeadlocks) {
  Harness h("v1b-callback-lock");
  h.runtime->Run(Region(1, 2, 2));
  // The growing run holds the lock in cuCtxSynchronize, which waits for the
  // pending callback, which waits for the lock.
  try {
    h.runtime->Run(Region(2, 8, 8));
    FAIL() << "growth with a pending callback completed";
  } catch (const HostHang& hang) {
    EXPECT_TRUE(Contains(hang.what(), "thread 999 waits for stacks lock, held by thread 1"))
        << hang.what();
  }
}

TEST(V1bCallbackLockTest, GrowingAfterTheCallbackRanIsFine) {
  Harness h("v1b-callback-lock");
  h.runtime->Run(Region(1, 2, 2));
  h.runtime->DeviceFree(h.runtime->DeviceAlloc(kMiB));  // cuMemFree drains
  h.runtime->Run(Region(2, 8, 8));
  h.ExitNormally();
  EXPECT_EQ(h.Violations(), "");
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
}

TEST(V1bCallbackLockTest, AbortIsBlamedOnTheLastRegionLaunched) {
  Harness h("v1b-callback-lock");
  h.runtime->Run(Region(1, 2, 2, /*aborts=*/true));
  h.runtime->Run(Region(2, 2, 2));  // fits: no wait, launched behind region 1
  EXPECT_TRUE(h.observer.fatals.empty());
  h.ExitNormally();  // close drains: region 1 traps, its callback runs
  ASSERT_FALSE(h.observer.fatals.empty());
  EXPECT_EQ(h.observer.fatals[0].region, 2u) << "the region that aborted was 1";
  EXPECT_EQ(h.observer.fatals[0].code, CuResult::kLaunchFailed);
}

TEST(V2Gcc11Test, FatalUnderTheLockDestroysALockedMutexAtClose) {
  Harness h("v2-gcc11");
  EXPECT_THROW(h.runtime->Run(Region(1, 2, 2, /*aborts=*/true)), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 2u);  // then "device finalization failed"
  EXPECT_EQ(h.observer.fatals[0].region, 1u);
  EXPECT_EQ(h.observer.fatals[0].message,
            absl::StrCat("cuCtxSynchronize error: ", CuResultDescription(CuResult::kLaunchFailed),
                         " (perhaps abort was called)"));
  EXPECT_TRUE(Contains(h.Violations(), "stacks lock destroyed while held by thread 1"))
      << h.Violations();
  // Freeing in the poisoned context fails; close reports it and stops
  // there (nvptx_close_device's CUDA_CALL): the context is not destroyed.
  EXPECT_FALSE(h.runtime->errors().empty());
  EXPECT_FALSE(h.device.destroyed());
}

TEST(V3TrunkTest, ConstructorAndDestructorKernelsRunUnderTheStacksLock) {
  Harness h("v3-trunk", {}, /*ctors=*/true, /*dtors=*/true);
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 1u);  // the constructors
  h.runtime->Run(Region(1, 2, 2));
  h.ExitNormally();
  EXPECT_EQ(h.device.calls(DriverCall::kLaunchKernel), 3u);  // + region + destructors
  EXPECT_EQ(h.device.calls(DriverCall::kStreamSynchronize), 2u);
  EXPECT_EQ(h.Violations(), "");
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
}

// B1 as first stated - an abort, then the destructor's relock at exit - does
// not happen in trunk: after the trap the destructor's look-up fails (719)
// before the lock is taken. The process exits; the real B1 (a non-sticky
// fatal error under the lock) is in gcc_fidelity_test.
TEST(V3TrunkTest, AbortWithDestructorsExitsWithoutTheRelock) {
  Harness h("v3-trunk", {}, /*ctors=*/false, /*dtors=*/true);
  EXPECT_THROW(h.runtime->Run(Region(1, 2, 2, /*aborts=*/true)), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 2u);
  EXPECT_EQ(h.observer.fatals[0].region, 1u);
  EXPECT_FALSE(Contains(h.Violations(), "relocked")) << h.Violations();
}

TEST(V3TrunkTest, AbortWithoutDestructorsExits) {
  Harness h("v3-trunk");
  EXPECT_THROW(h.runtime->Run(Region(1, 2, 2, /*aborts=*/true)), ProcessExited);
  EXPECT_EQ(h.host.exit_status(), 1);
}

TEST(EventFenceTest, RunReturnsBeforeTheKernelCompletesWithoutCallbacks) {
  Harness h("event-fence");
  h.runtime->Run(Region(1, 2, 2));
  h.runtime->Run(Region(2, 2, 2));
  // Nothing on the launch path waits: both kernels are still queued.
  EXPECT_EQ(h.device.completed_regions(), std::vector<std::uint32_t>{});
  EXPECT_EQ(h.device.queued(), 2u) << "two kernels and nothing else";
  EXPECT_EQ(h.device.calls(DriverCall::kStreamAddCallback), 0u);
  EXPECT_EQ(h.device.calls(DriverCall::kCtxSynchronize), 0u);
  EXPECT_EQ(h.device.calls(DriverCall::kStreamSynchronize), 0u);
  EXPECT_EQ(h.device.calls(DriverCall::kEventSynchronize), 0u);
  EXPECT_EQ(h.device.calls(DriverCall::kStreamWriteValue32), 0u);  // the kernels write
  EXPECT_EQ(h.device.calls(DriverCall::kMemHostAlloc), 1u);
  h.ExitNormally();
  EXPECT_EQ(h.device.completed_regions(), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(h.device.calls(DriverCall::kMemFreeHost), 1u);
  EXPECT_EQ(h.Violations(), "");
}

TEST(EventFenceTest, AbortIsBlamedOnTheRegionThatAborted) {
  Harness h("event-fence");
  h.runtime->Run(Region(1, 2, 2, /*aborts=*/true));
  h.device.Settle();  // the trap happens before the next call
  EXPECT_THROW(h.runtime->Run(Region(2, 2, 2)), ProcessExited);
  // Then close fails on the poisoned context: "device finalization failed".
  ASSERT_EQ(h.observer.fatals.size(), 2u);
  EXPECT_EQ(h.observer.fatals[1].message, "device finalization failed");
  EXPECT_EQ(h.observer.fatals[0].region, 1u);
  EXPECT_EQ(h.observer.fatals[0].code, CuResult::kLaunchFailed);
  EXPECT_TRUE(Contains(h.observer.fatals[0].message, "(perhaps abort was called)"));
  EXPECT_EQ(h.host.exit_status(), 1);
  EXPECT_EQ(h.Violations(), "");  // the lock was released before exit
}

TEST(EventFenceTest, AbortAmongSeveralKernelsInFlightIsBlamedOnItsRegion) {
  // Regions 1 to 3 are all queued when region 2's kernel traps: the ledger
  // shows 1 complete and nothing later, so 2 is blamed, not 1 or 3 and not
  // region 4, whose launch is the call that sees the error.
  Harness h("event-fence");
  h.runtime->Run(Region(1, 2, 2));
  h.runtime->Run(Region(2, 2, 2, /*aborts=*/true));
  h.runtime->Run(Region(3, 2, 2));
  EXPECT_EQ(h.device.completed_regions(), std::vector<std::uint32_t>{});
  h.device.Settle();
  EXPECT_THROW(h.runtime->Run(Region(4, 2, 2)), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 2u);  // and "device finalization failed"
  EXPECT_EQ(h.observer.fatals[0].region, 2u);
  EXPECT_EQ(h.device.completed_regions(), std::vector<std::uint32_t>{1});
  EXPECT_EQ(h.Violations(), "");
}

TEST(EventFenceTest, AbortInFlightIsFoundWhenTheBlockMustGrow) {
  // Growing the block waits for the kernels in flight first; the abort
  // surfaces there and is blamed on its region.
  Harness h("event-fence");
  h.runtime->Run(Region(1, 2, 2));
  h.runtime->Run(Region(2, 2, 2, /*aborts=*/true));
  EXPECT_THROW(h.runtime->Run(Region(3, 64, 8)), ProcessExited);
  ASSERT_EQ(h.observer.fatals.size(), 2u);  // and "device finalization failed"
  EXPECT_EQ(h.observer.fatals[0].region, 2u);
  EXPECT_EQ(h.Violations(), "");
}

TEST(EventFenceTest, AbortSeenByAnotherThreadIsStillBlamedOnItsRegion) {
  Harness h("event-fence");
  h.host.Spawn("a", [&] { h.runtime->Run(Region(7, 2, 2, /*aborts=*/true)); });
  EXPECT_THROW(h.host.Spawn("b",
                            [&] {
                              h.runtime->DeviceAlloc(kMiB);
                              h.runtime->Run(Region(8, 64, 8));
                            }),
               ProcessExited);
  // The allocation returned NULL, reporting the abort with its region; the
  // region after it raised the fatal error, naming region 7.
  ASSERT_FALSE(h.observer.errors.empty());
  EXPECT_TRUE(Contains(h.observer.errors[0].message, "(perhaps abort was called) in region 7"))
      << h.observer.errors[0].message;
  ASSERT_FALSE(h.observer.fatals.empty());
  EXPECT_EQ(h.observer.fatals[0].region, 7u);
  EXPECT_EQ(h.Violations(), "");
}

TEST(EventFenceTest, UserAllocationOnAPoisonedContextBlamesTheFencedRegion) {
  Harness h("event-fence");
  h.runtime->Run(Region(3, 2, 2, /*aborts=*/true));
  h.device.CtxSynchronize();  // the trap happens before the next call
  // Under the device lock: NULL and a message naming the region, no fatal.
  EXPECT_EQ(h.runtime->DeviceAlloc(kMiB), 0u);
  EXPECT_TRUE(h.observer.fatals.empty());
  ASSERT_FALSE(h.observer.errors.empty());
  EXPECT_TRUE(Contains(h.observer.errors[0].message, "in region 3"))
      << h.observer.errors[0].message;
}

TEST(EventFenceTest, AbortWithDestructorsExitsWithoutHanging) {
  Harness h("event-fence", {}, /*ctors=*/true, /*dtors=*/true);
  h.runtime->Run(Region(1, 2, 2, /*aborts=*/true));
  h.device.Settle();
  EXPECT_THROW(h.runtime->Run(Region(2, 2, 2)), ProcessExited);
  EXPECT_TRUE(h.host.exited());
  EXPECT_EQ(h.host.exit_status(), 1);
  ASSERT_EQ(h.observer.fatals.size(), 2u);
  EXPECT_EQ(h.observer.fatals[0].region, 1u);
  EXPECT_EQ(h.observer.fatals[1].message, "device finalization failed");
  EXPECT_EQ(h.Violations(), "");
}

TEST(EventFenceTest, AbortInTheLastRegionIsReportedAtClose) {
  Harness h("event-fence");
  h.runtime->Run(Region(1, 2, 2));
  h.runtime->Run(Region(2, 2, 2, /*aborts=*/true));
  h.ExitNormally();
  // Close finds the abort: it prints it, naming the region, and fails, so
  // the process ends with "device finalization failed" and status 1.
  ASSERT_FALSE(h.observer.errors.empty());
  EXPECT_TRUE(Contains(h.observer.errors[0].message, "(perhaps abort was called) in region 2"))
      << h.observer.errors[0].message;
  ASSERT_EQ(h.observer.fatals.size(), 1u);
  EXPECT_EQ(h.observer.fatals[0].message, "device finalization failed");
  EXPECT_EQ(h.host.exit_status(), 1);
  EXPECT_EQ(h.Violations(), "");
}

// The policy alone, without the runtime's exit handler: what a thread that
// enters it after another thread's fatal error (the process exiting, its
// handlers not yet done) gets to do.
TEST(EventFenceTest, AfterAFatalErrorLaterCallsLeaveTheDeviceAlone) {
  FakeHost host;
  FakeDeviceOptions options;
  options.capacity = 8 * kMiB;
  FakeDevice device(host, options);
  RecordingObserver observer;
  RuntimeContext ctx(device, host, observer, RuntimeOptions{});
  std::unique_ptr<Policy> policy = FindPolicy("event-fence")->make(ctx);
  policy->Run(Region(1, 2, 2, /*aborts=*/true), 0);
  // device_alloc runs under libgomp's device lock, so it never raises a
  // fatal error: it reports the abort in flight, the root cause, with
  // libgomp's hint, and returns NULL.
  EXPECT_EQ(policy->DeviceAlloc(64 * kMiB), 0u);
  ASSERT_FALSE(observer.errors.empty());
  EXPECT_NE(observer.errors[0].message.find(std::string(kAbortHint)), std::string::npos)
      << observer.errors[0].message;
  EXPECT_TRUE(observer.fatals.empty());
  // The next region raises it, naming the region that aborted.
  EXPECT_THROW(policy->Run(Region(2, 2, 2), 0), ProcessExited);
  ASSERT_EQ(observer.fatals.size(), 1u);
  EXPECT_EQ(observer.fatals[0].region, 1u);
  EXPECT_EQ(observer.fatals[0].code, CuResult::kLaunchFailed);

  const std::uint32_t launches = device.calls(DriverCall::kLaunchKernel);
  policy->Run(Region(3, 2, 2), 0);  // falls back to the host
  EXPECT_EQ(device.calls(DriverCall::kLaunchKernel), launches);
  EXPECT_EQ(policy->DeviceAlloc(kMiB), 0u);
  EXPECT_TRUE(policy->DeviceFree(0x1234));  // skipped: no second fatal error
  EXPECT_EQ(observer.fatals.size(), 1u);
  policy->Close();  // the exit handler's close still works
  EXPECT_EQ(host.violations(), std::vector<std::string>{});
}

TEST(EventFenceTest, UserFreeWaitsForTheKernelInFlight) {
  FakeDeviceOptions options;
  options.free_waits = false;
  Harness h("event-fence", options);
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);
  h.runtime->Run(Region(1, 2, 2));
  EXPECT_EQ(h.device.queued(), 1u);  // the kernel, nothing behind it
  h.runtime->DeviceFree(p);
  EXPECT_EQ(h.device.queued(), 0u);
  h.ExitNormally();
}

TEST(EventFenceTest, SeveralThreadsShareOneBlockSafely) {
  FakeDeviceOptions options;
  options.free_waits = false;
  Harness h("event-fence", options);
  for (RegionId id = 1; id <= 6; ++id) {
    h.host.Spawn("t", [&, id] { h.runtime->Run(Region(id, id, 4)); });
  }
  h.ExitNormally();
  EXPECT_EQ(h.device.completed_regions(), (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(h.Violations(), "");
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
}

}  // namespace
}  // namespace stackcheck::testing
