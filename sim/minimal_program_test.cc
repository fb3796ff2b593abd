// The Foundation check: a minimal program (alloc, launch, synchronize, free)
// through core/device.h against the simulator backend.
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

TEST(MinimalProgram, AllocLaunchSynchronizeFree) {
  Simulator sim;
  testing::NonPreemptive strategy;
  CuResult launch = CuResult::kUnknown, sync = CuResult::kUnknown, freed = CuResult::kUnknown;
  DevicePtr block = 0;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    ASSERT_EQ(d.MemAlloc(&block, 8 * kMiB), CuResult::kSuccess);
    launch = d.LaunchKernel(o.kernel, testing::Grid(8), testing::Warps(8), Args(block, 7, 5000),
                            kLegacyStream);
    sync = d.CtxSynchronize();
    freed = d.MemFree(block);
  });
  EXPECT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(launch, CuResult::kSuccess);
  EXPECT_EQ(sync, CuResult::kSuccess);
  EXPECT_EQ(freed, CuResult::kSuccess);
  EXPECT_TRUE(r.process_exited);
  EXPECT_EQ(r.exit_status, 0);
  const long enqueue = Find(r.trace, EventKind::kKernelEnqueue);
  const long start = Find(r.trace, EventKind::kKernelStart);
  const long end = Find(r.trace, EventKind::kKernelEnd);
  const long free = Find(r.trace, EventKind::kFree);
  ASSERT_GE(enqueue, 0);
  EXPECT_LT(enqueue, start);
  EXPECT_LT(start, end);
  EXPECT_LT(end, free);
  const auto launch_event = r.trace[enqueue].As<payload::KernelLaunch>();
  EXPECT_EQ(launch_event.stacks, block);
  EXPECT_EQ(launch_event.kernel.region_tag, 7u);
  EXPECT_EQ(launch_event.kernel.slots, 64u);  // 8 teams x 8 warps
  EXPECT_GE(r.trace[end].time_ns, r.trace[start].time_ns + 5000);
  EXPECT_EQ(Count(r.trace, EventKind::kAlloc), 1);
  EXPECT_EQ(sim.ActorName(0), "T0");
}

TEST(MinimalProgram, SimulatorIsReusable) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::uint64_t first_digest = 0;
  for (int i = 0; i < 100; ++i) {
    const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
      const testing::Opened o = testing::Open(d);
      DevicePtr p = 0;
      ASSERT_EQ(d.MemAlloc(&p, kMiB), CuResult::kSuccess);
      ThreadId t = h.Spawn("worker", [&] {
        EXPECT_EQ(d.LaunchKernel(o.kernel, testing::Grid(1), testing::Warps(1), Args(p, 1),
                                 kLegacyStream),
                  CuResult::kSuccess);
      });
      h.Join(t);
      EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
      EXPECT_EQ(d.MemFree(p), CuResult::kSuccess);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    if (i == 0) first_digest = r.digest;
    EXPECT_EQ(r.digest, first_digest);
  }
  EXPECT_LE(sim.stacks_mapped(), 3u);
}

}  // namespace
}  // namespace stackcheck::sim
