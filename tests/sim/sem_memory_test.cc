// SEM-10..13: allocation, freeing (both modes), memory info, stream-ordered
// allocation; addresses that do not depend on other threads' allocations.
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "sim/event_payloads.h"
#include "sim/sim_test_util.h"
#include "sim/simulator.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

using testing::Args;
using testing::Count;
using testing::Find;
using testing::Grid;
using testing::Warps;

// Host threads first, then the callback thread, then the GPU.
testing::Priority HostFirst(const Simulator& sim) {
  return testing::Priority([&sim](ActorId a) {
    const absl::string_view n = sim.ActorName(a);
    if (absl::StartsWith(n, "T")) return 0;
    if (absl::StartsWith(n, "callback")) return 1;
    return 2;
  });
}

TEST(SemMemory, SEM10_AllocValidatesRoundsAndFailsWithoutWaiting) {
  SimConfig config;
  config.device_capacity = 10 * kMiB;
  config.modes.alloc_granularity = 2 * kMiB;
  Simulator sim(config);
  testing::Priority strategy = HostFirst(sim);
  std::vector<CuResult> results;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 500000000), kLegacyStream);
    DevicePtr p = 0;
    results.push_back(d.MemAlloc(&p, 0));                              // invalid value
    for (int i = 0; i < 5; ++i) results.push_back(d.MemAlloc(&p, 1));  // 5 x 2 MiB
    results.push_back(d.MemAlloc(&p, 1));                              // out of memory
    results.push_back(d.MemGetInfo(nullptr));                          // not sticky: still answers
    d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(results[0], CuResult::kInvalidValue);
  for (int i = 1; i <= 5; ++i) EXPECT_EQ(results[i], CuResult::kSuccess) << i;
  EXPECT_EQ(results[6], CuResult::kOutOfMemory);
  EXPECT_EQ(results[7], CuResult::kInvalidValue);
  EXPECT_EQ(Count(r.trace, EventKind::kDriverCallBlock), 1);  // only the synchronize
  // Every allocation answered while the 500 ms kernel ran.
  EXPECT_LT(Find(r.trace, EventKind::kAllocFailed, Find(r.trace, EventKind::kAlloc)),
            Find(r.trace, EventKind::kKernelEnd));
}

TEST(SemMemory, SEM10_FaultPlanFailsTheKthAllocation) {
  SimConfig config;
  config.alloc_failure_at_call = 2;
  Simulator sim(config);
  testing::NonPreemptive strategy;
  std::vector<CuResult> results;
  sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    testing::Open(d);
    DevicePtr p = 0;
    for (int i = 0; i < 3; ++i) results.push_back(d.MemAlloc(&p, kMiB));
  });
  EXPECT_EQ(results, (std::vector<CuResult>{CuResult::kSuccess, CuResult::kOutOfMemory,
                                            CuResult::kSuccess}));
}

// Two threads allocate in either order: each block's address depends on its
// thread alone, which lets the reduction take allocations to commute; an
// execution that allocates more than the capacity says the premise broke.
TEST(SemMemory, SEM10_AnAddressDoesNotDependOnOtherThreadsAllocations) {
  for (std::uint64_t capacity : {64 * kMiB, 6 * kMiB}) {
    std::vector<std::vector<DevicePtr>> by_order;
    for (const char* first : {"T1", "T2"}) {
      SimConfig config;
      config.device_capacity = capacity;
      Simulator sim(config);
      testing::Priority strategy([&sim, first](ActorId a) {
        const absl::string_view n = sim.ActorName(a);
        if (n == first) return 0;
        return absl::StartsWith(n, "T") ? 1 : 2;
      });
      DevicePtr p[2] = {0, 0};
      const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
        testing::Open(d);
        ThreadId t[2];
        for (int i = 0; i < 2; ++i) {
          t[i] = h.Spawn("allocator", [&d, &p, i] {
            DevicePtr scratch = 0;
            d.MemAlloc(&scratch, kMiB);
            d.MemFree(scratch);
            d.MemAlloc(&p[i], kMiB);
          });
        }
        for (ThreadId thread : t) h.Join(thread);
      });
      ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
      // 4 x 2 MiB charged over the execution, 4 MiB live at most.
      EXPECT_EQ(r.capacity_premise_broken, capacity < 8 * kMiB) << capacity;
      by_order.push_back({p[0], p[1]});
    }
    EXPECT_NE(by_order[0][0], by_order[0][1]);
    EXPECT_EQ(by_order[0], by_order[1]) << capacity;
  }
}

struct Sleeper {
  Host* host;
};

TEST(SemMemory, SEM11_FreeWaitsForRunningCallback) {
  Simulator sim;
  testing::Priority strategy = HostFirst(sim);
  Sleeper sleeper;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    sleeper.host = &h;
    DevicePtr unrelated = 0;
    ASSERT_EQ(d.MemAlloc(&unrelated, kMiB), CuResult::kSuccess);
    StreamHandle s{};
    d.StreamCreate(&s, StreamFlags::kNonBlocking);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 1000), s);
    d.StreamAddCallback(
        s,
        [](StreamHandle, CuResult, void* p) {
          static_cast<Sleeper*>(p)->host->SleepFor(absl::Milliseconds(1));
        },
        &sleeper);
    EXPECT_EQ(d.MemFree(unrelated), CuResult::kSuccess);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  const long block = Find(r.trace, EventKind::kDriverCallBlock);
  const long cb_end = Find(r.trace, EventKind::kCallbackEnd);
  const long freed = Find(r.trace, EventKind::kFree);
  ASSERT_GE(block, 0);
  EXPECT_EQ(r.trace[block].As<payload::Call>().call, DriverCall::kMemFree);
  EXPECT_LT(Find(r.trace, EventKind::kKernelEnd), freed);
  EXPECT_LT(cb_end, freed);
}

TEST(SemMemory, SEM11_NoWaitModeFreesAtOnceAndRejectsBadPointers) {
  SimConfig config;
  config.modes.free_waits_for_streams = false;
  Simulator sim(config);
  testing::Priority strategy = HostFirst(sim);
  std::vector<CuResult> results;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    DevicePtr p = 0;
    ASSERT_EQ(d.MemAlloc(&p, 4 * kMiB), CuResult::kSuccess);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(p, 1, 1000000), kLegacyStream);
    results.push_back(d.MemFree(p));  // the kernel has not even started
    results.push_back(d.MemFree(p));  // double free
    results.push_back(d.MemFree(0));  // null is fine
    DevicePtr q = 0;
    d.MemAlloc(&q, 4 * kMiB);
    results.push_back(d.MemFree(q + 64));  // interior pointer
    d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(results, (std::vector<CuResult>{CuResult::kSuccess, CuResult::kInvalidValue,
                                            CuResult::kSuccess, CuResult::kInvalidValue}));
  EXPECT_LT(Find(r.trace, EventKind::kFree), Find(r.trace, EventKind::kKernelStart));
}

TEST(SemMemory, SEM11_WaitModeRejectsDoubleFreeAndInteriorPointers) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::vector<CuResult> results;
  sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    testing::Open(d);
    DevicePtr p = 0;
    d.MemAlloc(&p, kMiB);
    results.push_back(d.MemFree(p + 8));
    results.push_back(d.MemFree(p));
    results.push_back(d.MemFree(p));
    results.push_back(d.MemFree(0));
  });
  EXPECT_EQ(results, (std::vector<CuResult>{CuResult::kInvalidValue, CuResult::kSuccess,
                                            CuResult::kInvalidValue, CuResult::kSuccess}));
}

TEST(SemMemory, SEM12_MemGetInfoReportsCapacityMinusLiveRoundedBytes) {
  SimConfig config;
  config.device_capacity = 64 * kMiB;
  config.modes.alloc_granularity = 2 * kMiB;
  Simulator sim(config);
  testing::NonPreemptive strategy;
  std::vector<MemInfo> infos(4);
  CuResult poisoned = CuResult::kSuccess;
  sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    d.MemGetInfo(&infos[0]);
    DevicePtr p = 0;
    d.MemAlloc(&p, 3 * kMiB);
    d.MemGetInfo(&infos[1]);
    d.MemFree(p);
    d.MemGetInfo(&infos[2]);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 10, KernelAction::kTrap), kLegacyStream);
    d.CtxSynchronize();
    poisoned = d.MemGetInfo(&infos[3]);
  });
  EXPECT_EQ(infos[0].total_bytes, 64 * kMiB);
  EXPECT_EQ(infos[0].free_bytes, 64 * kMiB);
  EXPECT_EQ(infos[1].free_bytes, 60 * kMiB);
  EXPECT_EQ(infos[2].free_bytes, 64 * kMiB);
  EXPECT_EQ(poisoned, CuResult::kLaunchFailed);
}

struct AsyncCtx {
  Device* device;
  std::vector<CuResult> results;
};

TEST(SemMemory, SEM13_StreamOrderedFreeCompletesInStreamOrderAndNeverSynchronizes) {
  Simulator sim;
  testing::Priority strategy = HostFirst(sim);
  AsyncCtx ctx;
  CuResult sync_free = CuResult::kUnknown;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    ctx.device = &d;
    StreamHandle s{};
    d.StreamCreate(&s, StreamFlags::kNonBlocking);
    DevicePtr a = 0, b = 0;
    ASSERT_EQ(d.MemAllocAsync(&a, kMiB, s), CuResult::kSuccess);
    ASSERT_EQ(d.MemAllocAsync(&b, kMiB, s), CuResult::kSuccess);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(a, 1, 100000), s);
    EXPECT_EQ(d.MemFreeAsync(a, s), CuResult::kSuccess);
    sync_free = d.MemFree(b);  // stream-ordered memory: no implicit synchronisation
    d.StreamAddCallback(
        s,
        [](StreamHandle stream, CuResult, void* p) {
          auto* c = static_cast<AsyncCtx*>(p);
          DevicePtr x = 0;
          c->results.push_back(c->device->MemAllocAsync(&x, kMiB, stream));
          c->results.push_back(c->device->MemFreeAsync(0x1234, stream));
        },
        &ctx);
    d.StreamSynchronize(s);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(sync_free, CuResult::kSuccess);
  EXPECT_EQ(Count(r.trace, EventKind::kDriverCallBlock), 1);  // only the synchronize
  const long kernel_end = Find(r.trace, EventKind::kKernelEnd);
  const long async_free = Find(r.trace, EventKind::kAsyncFreeComplete);
  EXPECT_LT(Find(r.trace, EventKind::kFree), kernel_end);
  EXPECT_LT(kernel_end, async_free);
  EXPECT_EQ(ctx.results, (std::vector<CuResult>{CuResult::kNotPermitted, CuResult::kNotPermitted}));
}

}  // namespace
}  // namespace stackcheck::sim
