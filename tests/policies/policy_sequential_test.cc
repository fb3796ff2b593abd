// Every policy's sequential behaviour: reuse, growth, soft limit, out-of-memory
// retry, and nothing left at close. One thread, no aborts: even the hazardous
// versions must get these right.
#include <string>
#include <vector>

#include "core/probes.h"
#include "gtest/gtest.h"
#include "tests/policies/policy_test_util.h"

namespace stackcheck::testing {
namespace {

// What each version does sequentially, from docs/libgomp-model.md.
struct Expected {
  const char* policy;
  bool caches;       // the block survives the region
  bool soft_limit;   // device_alloc frees a block above the soft limit
  bool oom_retry;    // device_alloc frees the cache and retries on OOM
  bool synchronous;  // run returns after its kernel completed
  // Growing the block while a callback is pending deadlocks (v1b's hazard);
  // these tests let the GPU settle before a growth, the hazard tests don't.
  bool grows_only_when_idle = false;
};

constexpr Expected kExpected[] = {
    {"v0-nocache", false, false, false, true},
    {"v1a-callback-unlock", true, false, false, false},
    {"v1b-callback-lock", true, false, false, false, true},
    {"v2-gcc11", true, true, true, true},
    {"v3-trunk", true, true, true, true},
    {"event-fence", true, true, true, false},
    {"event-fence-sync", true, true, true, true},
    {"event-fence-keep", true, false, true, false},
};

class PolicySequentialTest : public ::testing::TestWithParam<Expected> {};

constexpr std::uint64_t kWarpStack = kDefaultStackSizePerWarp;

TEST(PolicyRegistryTest, EveryRegisteredPolicyHasExpectations) {
  for (const PolicyInfo& info : AllPolicies()) {
    bool found = false;
    for (const Expected& e : kExpected) found |= std::string(e.policy) == info.name;
    EXPECT_TRUE(found) << info.name << " has no sequential expectations here";
  }
  EXPECT_EQ(AllPolicies().size(), std::size(kExpected));
}

TEST_P(PolicySequentialTest, ReusesTheBlockForRegionsThatFit) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 4, 8));
  h.runtime->Run(Region(2, 4, 8));
  h.runtime->Run(Region(3, 2, 8));
  EXPECT_EQ(h.device.calls(DriverCall::kMemAlloc), e.caches ? 1u : 3u);
  EXPECT_EQ(h.runtime->CachedBytes(), e.caches ? 4 * 8 * kWarpStack : 0);
  h.ExitNormally();
  EXPECT_EQ(h.device.completed_regions(), (std::vector<std::uint32_t>{1, 2, 3}));
  if (e.policy == std::string("v1a-callback-unlock")) {
    // Its hazard: the callback thread unlocks the launching thread's mutex.
    EXPECT_NE(h.Violations().find("unlocked by thread 999"), std::string::npos);
  } else {
    EXPECT_EQ(h.Violations(), "");
  }
}

TEST_P(PolicySequentialTest, GrowsTheBlockForALargerRegion) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 2, 8));
  if (e.grows_only_when_idle) h.device.Settle();
  h.runtime->Run(Region(2, 8, 8));
  EXPECT_EQ(h.device.calls(DriverCall::kMemAlloc), 2u);
  EXPECT_EQ(h.runtime->CachedBytes(), e.caches ? 8 * 8 * kWarpStack : 0);
  if (e.synchronous) {
    // Nothing but the cache is allocated: the small block is gone.
    EXPECT_EQ(h.device.live_bytes(), e.caches ? 8 * 8 * kWarpStack : 0);
  }
  h.ExitNormally();
  EXPECT_EQ(h.device.completed_regions(), (std::vector<std::uint32_t>{1, 2}));
}

TEST_P(PolicySequentialTest, SoftLimitFreesALargeBlockAtTheNextDeviceAlloc) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 132, 8));  // 132 MiB > 128 MiB
  const std::uint64_t big = 132 * 8 * kWarpStack;
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);
  EXPECT_NE(p, 0u);
  const std::uint64_t held = e.caches && !e.soft_limit ? big : 0;
  EXPECT_EQ(h.runtime->CachedBytes(), held);
  EXPECT_EQ(h.observer.Probed(kProbeSoftLimitFree), e.soft_limit);
  ASSERT_EQ(h.observer.cache_held.size(), 1u);
  EXPECT_EQ(h.observer.cache_held[0], held);
  h.runtime->DeviceFree(p);
  h.ExitNormally();
}

// libgomp maps a region's variables (gomp_map_vars -> GOMP_OFFLOAD_alloc)
// before it runs it: with a block above the soft limit, a soft limit frees the
// block in every region and the next run allocates it again.
TEST_P(PolicySequentialTest, RegionsThatMapDataKeepTheBlockUnlessTheSoftLimitFreesIt) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  constexpr int kRegions = 3;
  for (int i = 1; i <= kRegions; ++i) {
    DevicePtr var = h.runtime->DeviceAlloc(kMiB);
    ASSERT_NE(var, 0u);
    h.runtime->Run(Region(i, 132, 8));  // 132 MiB > 128 MiB
    h.runtime->DeviceFree(var);
  }
  const unsigned stacks_allocations = e.caches && !e.soft_limit ? 1 : kRegions;
  EXPECT_EQ(h.device.calls(DriverCall::kMemAlloc), kRegions + stacks_allocations);
  EXPECT_EQ(h.runtime->CachedBytes(), e.caches ? 132 * 8 * kWarpStack : 0);
  h.ExitNormally();
  EXPECT_EQ(h.device.completed_regions(), (std::vector<std::uint32_t>{1, 2, 3}));
}

// The cache gives way to an allocation that fits only without it, whatever
// its size: by the soft limit before trying, or by the retry after failing.
TEST_P(PolicySequentialTest, ALargeBlockGivesWayToAnAllocationThatNeedsItsRoom) {
  const Expected& e = GetParam();
  if (!e.oom_retry) GTEST_SKIP() << "no retry: OutOfMemoryFreesTheCacheAndRetries covers it";
  Harness h(e.policy);
  h.runtime->Run(Region(1, 132, 8));
  DevicePtr p = h.runtime->DeviceAlloc(1000 * kMiB);
  EXPECT_NE(p, 0u);
  EXPECT_EQ(h.runtime->CachedBytes(), 0u);
  EXPECT_EQ(h.observer.Probed(kProbeOomRetry), !e.soft_limit);
  EXPECT_TRUE(h.observer.errors.empty());
  h.runtime->DeviceFree(p);
  h.ExitNormally();
}

TEST_P(PolicySequentialTest, BlockAtTheSoftLimitIsKept) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 128, 8));  // exactly 128 MiB: not above the limit
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);
  EXPECT_EQ(h.runtime->CachedBytes(), e.caches ? 128 * kMiB : 0);
  EXPECT_FALSE(h.observer.Probed(kProbeSoftLimitFree));
  h.runtime->DeviceFree(p);
  h.ExitNormally();
}

TEST_P(PolicySequentialTest, OutOfMemoryFreesTheCacheAndRetries) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 64, 8));  // 64 MiB cached, under the soft limit
  // omp_target_alloc: fits only without the cache; a policy that keeps it
  // returns NULL (printed, not fatal), as GCC 10's GOMP_OFFLOAD_alloc did.
  DevicePtr p = h.runtime->DeviceAlloc(1000 * kMiB);
  EXPECT_EQ(h.observer.Probed(kProbeOomRetry), e.oom_retry);
  EXPECT_TRUE(h.observer.fatals.empty());
  if (e.oom_retry || !e.caches) {
    EXPECT_NE(p, 0u);
    EXPECT_EQ(h.runtime->CachedBytes(), 0u);
    h.runtime->DeviceFree(p);
  } else {
    EXPECT_EQ(p, 0u) << "allocated past a full cache";
    EXPECT_EQ(h.runtime->CachedBytes(), 64 * kMiB);
    ASSERT_FALSE(h.observer.errors.empty());
    EXPECT_EQ(h.observer.errors[0].code, CuResult::kOutOfMemory);
  }
  h.ExitNormally();
}

TEST_P(PolicySequentialTest, InjectedAllocationFailureIsRetriedOnce) {
  const Expected& e = GetParam();
  FakeDeviceOptions options;
  options.fail_alloc_at_call = 2;  // the first user allocation
  Harness h(e.policy, options);
  h.runtime->Run(Region(1, 4, 8));
  if (!e.oom_retry) {
    // omp_target_alloc gets NULL; the failure is printed, not fatal.
    EXPECT_EQ(h.runtime->DeviceAlloc(kMiB), 0u);
    EXPECT_TRUE(h.observer.fatals.empty());
    ASSERT_EQ(h.observer.errors.size(), 1u);
    EXPECT_EQ(h.observer.errors[0].code, CuResult::kOutOfMemory);
    return;
  }
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);
  EXPECT_NE(p, 0u);
  EXPECT_TRUE(h.observer.Probed(kProbeOomRetry));
  // The retry gave the cache back; the next region allocates it again.
  EXPECT_EQ(h.runtime->CachedBytes(), 0u);
  h.runtime->Run(Region(2, 4, 8));
  EXPECT_EQ(h.runtime->CachedBytes(), 4 * 8 * kWarpStack);
  h.runtime->DeviceFree(p);
  h.ExitNormally();
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
}

TEST_P(PolicySequentialTest, EverythingIsFreedAtClose) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 2, 4));
  DevicePtr p = h.runtime->DeviceAlloc(3 * kMiB);
  if (e.grows_only_when_idle) h.device.Settle();
  h.runtime->Run(Region(2, 16, 8));
  h.runtime->DeviceFree(p);
  h.runtime->Run(Region(3, 1, 1));
  h.ExitNormally();
  EXPECT_TRUE(h.host.exited());
  EXPECT_EQ(h.host.exit_status(), 0);
  EXPECT_TRUE(h.device.destroyed());
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
  EXPECT_EQ(h.device.completed_regions(), (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_TRUE(h.runtime->errors().empty());
  EXPECT_EQ(h.observer.begun, (std::vector<RegionId>{1, 2, 3}));
  EXPECT_EQ(h.observer.ended, (std::vector<RegionId>{1, 2, 3}));
}

TEST_P(PolicySequentialTest, CloseIsIdempotent) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 2, 4));
  h.runtime->CloseDevice();
  h.runtime->CloseDevice();
  h.ExitNormally();  // the exit handler closes again: nothing happens
  EXPECT_EQ(h.device.calls(DriverCall::kCtxDestroy), 1u);
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
}

TEST_P(PolicySequentialTest, SynchronousPoliciesCompleteTheRegionInRun) {
  const Expected& e = GetParam();
  Harness h(e.policy);
  h.runtime->Run(Region(1, 2, 4));
  EXPECT_EQ(h.device.completed_regions().size(), e.synchronous ? 1u : 0u);
  EXPECT_EQ(FindPolicy(e.policy)->accepts_async_completion, !e.synchronous);
  h.ExitNormally();
}

// SEM-11's other mode: cuMemFree frees at once, so a free of a block that a
// queued kernel still uses is caught. The policies that hold every safety
// property never do that, sequentially.
TEST_P(PolicySequentialTest, SafeWhenMemFreeDoesNotWait) {
  const Expected& e = GetParam();
  if (!e.synchronous && e.policy != std::string("event-fence")) {
    GTEST_SKIP() << "the V1 readings free under queued kernels or deadlock "
                    "here: see policy_hazards_test";
  }
  FakeDeviceOptions options;
  options.free_waits = false;
  Harness h(e.policy, options);
  h.runtime->Run(Region(1, 2, 8));
  h.runtime->Run(Region(2, 140, 8));           // grow past the soft limit
  DevicePtr p = h.runtime->DeviceAlloc(kMiB);  // soft limit frees it
  h.runtime->Run(Region(3, 4, 8));
  // 4 MiB cached + 1 MiB: only the retry (where there is one) makes room.
  DevicePtr q = h.runtime->DeviceAlloc((e.oom_retry ? 1020 : 100) * kMiB);
  EXPECT_EQ(h.observer.Probed(kProbeOomRetry), e.oom_retry);
  h.runtime->DeviceFree(q);
  h.runtime->DeviceFree(p);
  h.runtime->Run(Region(4, 4, 8));
  h.ExitNormally();
  EXPECT_EQ(h.Violations(), "");
  EXPECT_EQ(h.device.leaked_at_destroy(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicySequentialTest, ::testing::ValuesIn(kExpected),
                         [](const ::testing::TestParamInfo<Expected>& info) {
                           std::string name = info.param.policy;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace stackcheck::testing
