// SEM-05 sticky errors, SEM-06 pending callbacks and host functions on error,
// SEM-14 a synchronous copy that a trap interrupts.
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "sim/sim_test_util.h"
#include "sim/simulator.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

using testing::Args;
using testing::Count;
using testing::Find;
using testing::Grid;
using testing::Warps;

TEST(SemErrors, SEM05_StickyErrorIsAbsorbingAndEveryContextCallReturnsIt) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::vector<CuResult> results;
  DevicePtr block = 0;
  MemInfo info;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    ASSERT_EQ(d.MemAlloc(&block, kMiB), CuResult::kSuccess);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 1, 10, KernelAction::kTrap),
                   kLegacyStream);
    results.push_back(d.CtxSynchronize());
    results.push_back(d.MemFree(block));
    DevicePtr p = 0;
    results.push_back(d.MemAlloc(&p, kMiB));
    results.push_back(d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 2), kLegacyStream));
    StreamHandle s{};
    results.push_back(d.StreamCreate(&s, StreamFlags::kBlocking));
    EventHandle e{};
    results.push_back(d.EventCreate(&e));
    results.push_back(d.StreamQuery(kLegacyStream));
    results.push_back(d.MemGetInfo(&info));
    results.push_back(d.CtxCreate());  // no recovery by re-retaining
    results.push_back(d.StreamAddCallback(
        kLegacyStream, [](StreamHandle, CuResult, void*) {}, nullptr));
    results.push_back(d.CtxSynchronize());
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i], CuResult::kLaunchFailed) << "call " << i;
  }
  EXPECT_EQ(Count(r.trace, EventKind::kFree), 0);  // cuMemFree did not free
  EXPECT_EQ(Count(r.trace, EventKind::kAlloc), 1);
  EXPECT_EQ(Count(r.trace, EventKind::kKernelEnqueue), 1);
  EXPECT_EQ(Count(r.trace, EventKind::kStickyError), 1);
}

// What SEM-05 lets the search assume: a call made once the context is
// poisoned changes nothing, so two threads' calls after the trap commute:
// DPOR runs as many executions whether each thread makes one round of calls
// or two. Before the trap the same calls conflict (the launches append to
// one stream), and more rounds mean more orders to explore.
std::uint64_t DporExecutions(bool trap_first, int rounds) {
  Simulator sim;
  DfsStrategy dfs(DfsStrategy::Options{});
  std::uint64_t executions = 0;
  while (dfs.NewExecution()) {
    const ExecutionResult& r = sim.Run(dfs, [&](Device& d, Host& h, RuntimeObserver&) {
      const testing::Opened o = testing::Open(d);
      DevicePtr block = 0;
      d.MemAlloc(&block, kMiB);
      if (trap_first) {
        d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 1, 10, KernelAction::kTrap),
                       kLegacyStream);
        d.CtxSynchronize();
      }
      ThreadId t[2];
      for (int i = 0; i < 2; ++i) {
        t[i] = h.Spawn("caller", [&d, &o, block, i, rounds] {
          for (int round = 0; round < rounds; ++round) {
            DevicePtr p = 0;
            d.MemAlloc(&p, kMiB);
            d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 2 + i), kLegacyStream);
            EventHandle e{};
            d.EventCreate(&e);
            d.MemFree(p);
          }
        });
      }
      for (ThreadId thread : t) h.Join(thread);
      d.CtxSynchronize();
    });
    EXPECT_FALSE(r.violation.has_value()) << r.violation->message;
    ++executions;
  }
  EXPECT_TRUE(dfs.exhausted());
  return executions;
}

TEST(SemErrors, SEM05_CallsAfterTheStickyErrorCommute) {
  EXPECT_EQ(DporExecutions(/*trap_first=*/true, /*rounds=*/2),
            DporExecutions(/*trap_first=*/true, /*rounds=*/1));
  EXPECT_GT(DporExecutions(/*trap_first=*/false, /*rounds=*/2),
            DporExecutions(/*trap_first=*/false, /*rounds=*/1));
}

struct Ran {
  std::vector<CuResult> callback_status;
  int host_fns = 0;
};

TEST(SemErrors, SEM06_PendingCallbacksRunWithErrorQueuedWorkAndHostFunctionsDrop) {
  Simulator sim;
  // Host first, then the legacy stream, then everything else.
  testing::Priority strategy([&](ActorId a) {
    const absl::string_view n = sim.ActorName(a);
    if (absl::StartsWith(n, "T")) return 0;
    if (n == "gpu:s0") return 1;
    return 2;
  });
  Ran ran;
  CuResult late_callback = CuResult::kSuccess, late_host_fn = CuResult::kSuccess;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    StreamHandle other{};
    d.StreamCreate(&other, StreamFlags::kNonBlocking);
    auto callback = [](StreamHandle, CuResult status, void* p) {
      static_cast<Ran*>(p)->callback_status.push_back(status);
    };
    auto host_fn = [](void* p) { ++static_cast<Ran*>(p)->host_fns; };
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 10, KernelAction::kTrap), kLegacyStream);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 2), kLegacyStream);  // dropped
    d.StreamAddCallback(kLegacyStream, callback, &ran);                      // runs with 719
    d.LaunchHostFunc(kLegacyStream, host_fn, &ran);                          // dropped
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 3), other);          // dropped
    d.LaunchHostFunc(other, host_fn, &ran);                                  // dropped
    d.StreamAddCallback(other, callback, &ran);                              // runs with 719
    d.CtxSynchronize();
    late_callback = d.StreamAddCallback(other, callback, &ran);
    late_host_fn = d.LaunchHostFunc(other, host_fn, &ran);
    d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  ASSERT_EQ(ran.callback_status.size(), 2u);
  EXPECT_EQ(ran.callback_status[0], CuResult::kLaunchFailed);
  EXPECT_EQ(ran.callback_status[1], CuResult::kLaunchFailed);
  EXPECT_EQ(ran.host_fns, 0);
  EXPECT_EQ(Count(r.trace, EventKind::kKernelDropped), 2);
  EXPECT_EQ(Count(r.trace, EventKind::kHostFnDropped), 2);
  EXPECT_EQ(late_callback, CuResult::kLaunchFailed);
  EXPECT_EQ(late_host_fn, CuResult::kLaunchFailed);
  EXPECT_LT(Find(r.trace, EventKind::kStickyError), Find(r.trace, EventKind::kCallbackStart));
}

// SEM-14 as measured on the H200: a synchronous copy waiting behind a kernel
// that traps returns CUDA_ERROR_UNKNOWN at the trap, without waiting for the
// callbacks queued behind the kernel. Here such a callback needs a lock the
// copying thread holds: were the copy to wait for it, this would deadlock.
TEST(SemErrors, SEM14_CopyWaitingBehindATrapEndsThereWithoutWaitingForCallbacks) {
  Simulator sim;
  testing::NonPreemptive strategy;
  struct Seen {
    Mutex* lock = nullptr;
    bool ran = false;
  } seen;
  CuResult copy = CuResult::kSuccess;
  bool ran_before_copy_returned = true;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    std::unique_ptr<Mutex> lock = h.NewMutex("device lock");
    seen.lock = lock.get();
    DevicePtr block = 0;
    ASSERT_EQ(d.MemAlloc(&block, kMiB), CuResult::kSuccess);
    lock->Lock();
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 10, KernelAction::kTrap), kLegacyStream);
    d.StreamAddCallback(
        kLegacyStream,
        [](StreamHandle, CuResult, void* p) {
          auto* s = static_cast<Seen*>(p);
          s->lock->Lock();
          s->ran = true;
          s->lock->Unlock();
        },
        &seen);
    const int word = 1;
    copy = d.MemcpyHtoD(block, &word, sizeof(word));
    ran_before_copy_returned = seen.ran;
    lock->Unlock();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(copy, CuResult::kUnknown);
  EXPECT_FALSE(ran_before_copy_returned);
}

}  // namespace
}  // namespace stackcheck::sim
