// Deadlocks are reported with their wait-for cycle; the step bound catches
// executions that never end.
#include <memory>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "sim/sim_test_util.h"
#include "sim/simulator.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

using testing::Args;
using testing::Find;
using testing::Grid;
using testing::Warps;

struct Shared {
  Mutex* stacks = nullptr;
  Device* device = nullptr;
  StreamHandle stream{};
};

// The V1b hazard: T0 holds the stacks lock while cuMemFree waits for every
// stream, and the pending callback needs that lock.
void V1bShape(Device& d, Host& h, Shared& shared) {
  const testing::Opened o = testing::Open(d);
  std::unique_ptr<Mutex> stacks = h.NewMutex("stacks");
  shared.stacks = stacks.get();
  DevicePtr block = 0;
  d.MemAlloc(&block, kMiB);
  d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 1), kLegacyStream);
  d.StreamAddCallback(
      kLegacyStream,
      [](StreamHandle, CuResult, void* p) { MutexLock lock(static_cast<Shared*>(p)->stacks); },
      &shared);
  MutexLock lock(stacks.get());
  d.MemFree(block);
}

TEST(Deadlock, CallbackNeedsMutexHeldByThreadBlockedInMemFree) {
  Simulator sim;
  // The host thread first: it takes the lock before the callback can.
  testing::Priority strategy(
      [&](ActorId a) { return absl::StartsWith(sim.ActorName(a), "T") ? 0 : 1; });
  Shared shared;
  const ExecutionResult& r =
      sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) { V1bShape(d, h, shared); });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "no-deadlock");
  const std::string& m = r.violation->message;
  EXPECT_TRUE(absl::StrContains(m, "T0 waits in cuMemFree for gpu:s0 to drain")) << m;
  EXPECT_TRUE(absl::StrContains(m, "gpu:s0 waits for callback #0 running on callback")) << m;
  EXPECT_TRUE(absl::StrContains(m, "callback waits for mutex 'stacks' held by T0")) << m;
  EXPECT_FALSE(r.process_exited);
}

TEST(Deadlock, TheSameProgramPassesWhenTheCallbackRunsFirst) {
  Simulator sim;
  // GPU and callback first: the callback has come and gone before T0 locks.
  testing::Priority strategy(
      [&](ActorId a) { return absl::StartsWith(sim.ActorName(a), "T") ? 1 : 0; });
  Shared shared;
  const ExecutionResult& r =
      sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) { V1bShape(d, h, shared); });
  EXPECT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_TRUE(r.process_exited);
}

TEST(Deadlock, RelockByOwnerIsASelfCycle) {
  Simulator sim;
  testing::NonPreemptive strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    mu->Lock();
    mu->Lock();
  });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "no-deadlock");
  EXPECT_TRUE(absl::StrContains(r.violation->message, "held by T0 itself (relock)"))
      << r.violation->message;
}

TEST(Deadlock, LockOrderInversionBetweenTwoThreads) {
  Simulator sim;
  bool found = false;
  for (std::uint64_t seed = 0; seed < 200 && !found; ++seed) {
    testing::SeededRandom strategy(seed);
    const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
      std::unique_ptr<Mutex> a = h.NewMutex("a"), b = h.NewMutex("b");
      ThreadId t = h.Spawn("other", [&] {
        MutexLock lb(b.get());
        MutexLock la(a.get());
      });
      {
        MutexLock la(a.get());
        MutexLock lb(b.get());
      }
      h.Join(t);
    });
    if (!r.violation.has_value()) continue;
    found = true;
    EXPECT_EQ(r.violation->property, "no-deadlock");
    const std::string& m = r.violation->message;
    EXPECT_TRUE(absl::StrContains(m, "T0 waits for mutex 'b' held by T1")) << m;
    EXPECT_TRUE(absl::StrContains(m, "T1 waits for mutex 'a' held by T0")) << m;
  }
  EXPECT_TRUE(found) << "no schedule of 200 found the inversion";
}

TEST(Deadlock, MutexLeftLockedByAFinishedThreadIsReportedWithoutACycle) {
  Simulator sim;
  testing::NonPreemptive strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    h.Join(h.Spawn("leaver", [&] { mu->Lock(); }));
    mu->Lock();
  });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "no-deadlock");
  EXPECT_EQ(r.violation->message,
            "deadlock (no cycle): T0 waits for mutex 'm' held by T1, which has finished");
}

TEST(Deadlock, ConcurrentCallbacksWaitingOnEachOtherThroughAStream) {
  SimConfig config;
  config.modes.serial_callback_thread = false;
  Simulator sim(config);
  testing::NonPreemptive strategy;
  Shared shared;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    testing::Open(d);
    shared.device = &d;
    StreamHandle s{};
    d.StreamCreate(&s, StreamFlags::kNonBlocking);
    shared.stream = s;
    // The callback on the legacy stream waits for stream s, whose head waits
    // for an event recorded behind that same callback.
    EventHandle e{};
    d.EventCreate(&e);
    d.StreamAddCallback(
        kLegacyStream,
        [](StreamHandle, CuResult, void* p) {
          auto* sh = static_cast<Shared*>(p);
          sh->device->StreamSynchronize(sh->stream);
        },
        &shared);
    d.EventRecord(e, kLegacyStream);
    d.StreamWaitEvent(s, e);
    d.StreamAddCallback(
        s, [](StreamHandle, CuResult, void*) {}, nullptr);
    d.CtxSynchronize();
  });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "no-deadlock");
  const std::string& m = r.violation->message;
  EXPECT_TRUE(absl::StrContains(m, "callback0 waits in cuStreamSynchronize for gpu:s1 to drain"))
      << m;
  EXPECT_TRUE(absl::StrContains(m, "gpu:s1 waits for an event recorded on gpu:s0")) << m;
  EXPECT_TRUE(absl::StrContains(m, "gpu:s0 waits for callback #0 running on callback0")) << m;
}

TEST(Progress, StepBoundCatchesSpinning) {
  SimConfig config;
  config.modes.step_bound = 500;
  Simulator sim(config);
  testing::SeededRandom strategy(7);
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("flag");
    for (;;) {  // waits for a flag nobody sets
      mu->Lock();
      mu->Unlock();
      h.Yield();
    }
  });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "progress");
  EXPECT_EQ(r.steps, 500u);
  // The unwound fiber released its stack: the simulator runs on normally.
  const ExecutionResult& again =
      sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) { testing::Open(d); });
  EXPECT_FALSE(again.violation.has_value());
}

}  // namespace
}  // namespace stackcheck::sim
