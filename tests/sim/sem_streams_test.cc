// SEM-01..04: stream order, the legacy barrier, asynchronous launch, kernel
// lifetime.
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
using testing::Find;
using testing::Grid;
using testing::Warps;

// Position of kernel `id`'s event of `kind` (a kernel kind), or -1.
long KernelEvent(const std::vector<Event>& trace, EventKind kind, std::uint32_t id) {
  for (std::size_t i = 0; i < trace.size(); ++i) {
    if (trace[i].kind == kind && trace[i].As<payload::Kernel>().kernel == id) {
      return static_cast<long>(i);
    }
  }
  return -1;
}

TEST(SemStreams, SEM01_StreamOperationsRunInFifoOrder) {
  Simulator sim;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    testing::SeededRandom strategy(seed);
    const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
      const testing::Opened o = testing::Open(d);
      StreamHandle s{};
      ASSERT_EQ(d.StreamCreate(&s, StreamFlags::kNonBlocking), CuResult::kSuccess);
      EventHandle e{};
      ASSERT_EQ(d.EventCreate(&e), CuResult::kSuccess);
      d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 9000), s);  // kernel 0
      d.StreamAddCallback(
          s, [](StreamHandle, CuResult, void*) {}, nullptr);
      d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 2, 10), s);  // kernel 1
      d.EventRecord(e, s);
      EXPECT_EQ(d.StreamSynchronize(s), CuResult::kSuccess);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    const long end0 = KernelEvent(r.trace, EventKind::kKernelEnd, 0);
    const long cb_start = Find(r.trace, EventKind::kCallbackStart);
    const long cb_end = Find(r.trace, EventKind::kCallbackEnd);
    const long start1 = KernelEvent(r.trace, EventKind::kKernelStart, 1);
    const long end1 = KernelEvent(r.trace, EventKind::kKernelEnd, 1);
    const long record = Find(r.trace, EventKind::kEventComplete);
    ASSERT_GE(end0, 0);
    EXPECT_LT(end0, cb_start) << "seed " << seed;
    EXPECT_LT(cb_end, start1) << "seed " << seed;
    EXPECT_LT(end1, record) << "seed " << seed;
  }
}

TEST(SemStreams, SEM02_LegacyStreamBarrierExemptsNonBlockingStreams) {
  Simulator sim;
  bool non_blocking_overtook = false;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    testing::SeededRandom strategy(seed);
    const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
      const testing::Opened o = testing::Open(d);
      StreamHandle blocking{}, free_running{};
      d.StreamCreate(&blocking, StreamFlags::kBlocking);
      d.StreamCreate(&free_running, StreamFlags::kNonBlocking);
      d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 0, 100), blocking);       // 0
      d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 100), kLegacyStream);  // 1
      d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 2, 100), blocking);       // 2
      d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 3, 100), free_running);   // 3
      EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    // Legacy work waits for earlier blocking-stream work...
    EXPECT_LT(KernelEvent(r.trace, EventKind::kKernelEnd, 0),
              KernelEvent(r.trace, EventKind::kKernelStart, 1));
    // ...and later blocking-stream work waits for it.
    EXPECT_LT(KernelEvent(r.trace, EventKind::kKernelEnd, 1),
              KernelEvent(r.trace, EventKind::kKernelStart, 2));
    if (KernelEvent(r.trace, EventKind::kKernelStart, 3) <
        KernelEvent(r.trace, EventKind::kKernelEnd, 1)) {
      non_blocking_overtook = true;
    }
  }
  EXPECT_TRUE(non_blocking_overtook)
      << "a non-blocking stream's kernel never ran beside the legacy stream's";
}

TEST(SemStreams, SEM03_LaunchIsAsynchronousCopiesArgumentsAndRejectsBadConfigs) {
  Simulator sim;
  // Host threads move before the GPU whenever they can.
  testing::Priority strategy(
      [&](ActorId a) { return absl::StartsWith(sim.ActorName(a), "gpu") ? 1 : 0; });
  CuResult query = CuResult::kSuccess, zero_grid = CuResult::kSuccess,
           too_many = CuResult::kSuccess, after = CuResult::kUnknown, sync = CuResult::kUnknown;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    KernelArgs args = Args(0x1000, 5, 300000000);
    EXPECT_EQ(d.LaunchKernel(o.kernel, Grid(1), Warps(1), args, kLegacyStream), CuResult::kSuccess);
    args.region_tag = 99;  // too late: the launch copied its arguments
    args.stacks = 0x2000;
    query = d.StreamQuery(kLegacyStream);
    zero_grid = d.LaunchKernel(o.kernel, Dim3{0, 1, 1}, Warps(1), args, kLegacyStream);
    too_many = d.LaunchKernel(o.kernel, Grid(1), Dim3{32, 33, 1}, args, kLegacyStream);
    after = d.LaunchKernel(o.kernel, Grid(1), Warps(1), args, kLegacyStream);
    sync = d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(query, CuResult::kNotReady);  // the kernel had not even started
  EXPECT_EQ(zero_grid, CuResult::kInvalidValue);
  EXPECT_EQ(too_many, CuResult::kInvalidValue);
  EXPECT_EQ(after, CuResult::kSuccess);  // configuration errors are not sticky
  EXPECT_EQ(sync, CuResult::kSuccess);
  const long start = KernelEvent(r.trace, EventKind::kKernelStart, 0);
  ASSERT_GE(start, 0);
  const auto launch = r.trace[start].As<payload::KernelLaunch>();
  EXPECT_EQ(launch.kernel.region_tag, 5u);
  EXPECT_EQ(launch.stacks, 0x1000u);
}

TEST(SemStreams, SEM04_KernelHasStartAndEndAndTrapBecomesStickyAtEnd) {
  for (CuResult code : {CuResult::kLaunchFailed, CuResult::kAssert, CuResult::kIllegalAddress}) {
    SimConfig config;
    config.modes.trap_code = code;
    Simulator sim(config);
    testing::NonPreemptive strategy;
    CuResult launch = CuResult::kUnknown, sync = CuResult::kUnknown;
    const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
      const testing::Opened o = testing::Open(d);
      launch = d.LaunchKernel(o.kernel, Grid(2), Warps(2), Args(0, 1, 7000, KernelAction::kTrap),
                              kLegacyStream);
      sync = d.CtxSynchronize();
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    EXPECT_EQ(launch, CuResult::kSuccess);  // a fault never fails the launch
    EXPECT_EQ(sync, code);
    const long start = Find(r.trace, EventKind::kKernelStart);
    const long end = Find(r.trace, EventKind::kKernelEnd);
    const long sticky = Find(r.trace, EventKind::kStickyError);
    ASSERT_GE(start, 0);
    EXPECT_LT(start, end);
    EXPECT_LT(end, sticky);
    EXPECT_EQ(r.trace[end].As<payload::KernelEnd>().result, code);
    EXPECT_GE(r.trace[end].time_ns, r.trace[start].time_ns + 7000);
    EXPECT_EQ(r.trace[sticky].As<payload::StickyError>().code, code);
  }
}

}  // namespace
}  // namespace stackcheck::sim
