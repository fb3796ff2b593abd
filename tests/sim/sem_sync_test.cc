// SEM-14 synchronisation calls, SEM-15 teardown, SEM-16 thread safety.
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

struct Sleeper {
  Host* host;
};
void SleepCallback(StreamHandle, CuResult, void* p) {
  static_cast<Sleeper*>(p)->host->SleepFor(absl::Microseconds(50));
}

TEST(SemSync, SEM14_CtxSynchronizeWaitsForCallbacks) {
  Simulator sim;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    testing::SeededRandom strategy(seed);
    Sleeper sleeper;
    const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
      testing::Open(d);
      sleeper.host = &h;
      StreamHandle s{};
      d.StreamCreate(&s, StreamFlags::kNonBlocking);
      d.StreamAddCallback(s, SleepCallback, &sleeper);
      EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
      h.Yield();  // a marker after the synchronise returned
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    long sync_return = -1;
    for (std::size_t i = 0; i < r.trace.size(); ++i) {
      if (r.trace[i].kind == EventKind::kDriverCall &&
          r.trace[i].As<payload::Call>().call == DriverCall::kCtxSynchronize) {
        sync_return = static_cast<long>(i);
      }
    }
    EXPECT_LT(Find(r.trace, EventKind::kCallbackEnd), sync_return) << "seed " << seed;
  }
}

TEST(SemSync, SEM14_StreamSynchronizeWaitsForOneStreamOnly) {
  Simulator sim;
  // Host, then gpu:s1, then the rest: s2's kernel can only run when the host
  // is blocked and s1 is done.
  testing::Priority strategy([&](ActorId a) {
    const absl::string_view n = sim.ActorName(a);
    if (absl::StartsWith(n, "T")) return 0;
    if (n == "gpu:s1") return 1;
    return 2;
  });
  bool returned_before_s2 = false;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    StreamHandle s1{}, s2{};
    d.StreamCreate(&s1, StreamFlags::kNonBlocking);
    d.StreamCreate(&s2, StreamFlags::kNonBlocking);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 10), s1);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 2, 10), s2);
    EXPECT_EQ(d.StreamSynchronize(s1), CuResult::kSuccess);
    returned_before_s2 = d.StreamQuery(s2) == CuResult::kNotReady;
    d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_TRUE(returned_before_s2);
}

TEST(SemSync, SEM14_EventsCaptureTheTailAndStreamWaitEventOrdersWithoutBlocking) {
  Simulator sim;
  testing::Priority strategy(
      [&](ActorId a) { return absl::StartsWith(sim.ActorName(a), "T") ? 0 : 1; });
  std::vector<CuResult> q;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    StreamHandle s1{}, s2{};
    d.StreamCreate(&s1, StreamFlags::kNonBlocking);
    d.StreamCreate(&s2, StreamFlags::kNonBlocking);
    EventHandle e{};
    d.EventCreate(&e);
    q.push_back(d.EventQuery(e));  // never recorded: complete
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 100000), s1);  // kernel 0
    d.EventRecord(e, s1);
    q.push_back(d.EventQuery(e));  // pending
    q.push_back(d.StreamWaitEvent(s2, e));
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 2, 10), s2);  // kernel 1
    q.push_back(d.StreamQuery(s2));                                   // the host was not blocked
    q.push_back(d.EventSynchronize(e));
    q.push_back(d.EventQuery(e));
    d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(q,
            (std::vector<CuResult>{CuResult::kSuccess, CuResult::kNotReady, CuResult::kSuccess,
                                   CuResult::kNotReady, CuResult::kSuccess, CuResult::kSuccess}));
  long end0 = -1, start1 = -1;
  for (std::size_t i = 0; i < r.trace.size(); ++i) {
    const Event& e = r.trace[i];
    if (e.kind == EventKind::kKernelEnd && e.As<payload::Kernel>().kernel == 0) end0 = i;
    if (e.kind == EventKind::kKernelStart && e.As<payload::Kernel>().kernel == 1) start1 = i;
  }
  EXPECT_LT(end0, start1);
}

struct TeardownCtx {
  Host* host;
  int callbacks = 0;
};

TEST(SemSync, SEM15_CtxDestroyDrainsRunsCallbacksThenInvalidatesBlocks) {
  Simulator sim;
  testing::NonPreemptive strategy;
  TeardownCtx ctx;
  std::vector<CuResult> after;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    ctx.host = &h;
    DevicePtr p = 0;
    d.MemAlloc(&p, kMiB);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(p, 1, 1000), kLegacyStream);
    d.StreamAddCallback(
        kLegacyStream,
        [](StreamHandle, CuResult, void* c) { ++static_cast<TeardownCtx*>(c)->callbacks; }, &ctx);
    EXPECT_EQ(d.CtxDestroy(), CuResult::kSuccess);
    after.push_back(d.MemFree(p));
    DevicePtr q = 0;
    after.push_back(d.MemAlloc(&q, kMiB));
    after.push_back(d.CtxCreate());  // a new context...
    after.push_back(d.MemFree(p));   // ...does not revive the old blocks
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(ctx.callbacks, 1);
  const long block = Find(r.trace, EventKind::kDriverCallBlock);
  const long cb = Find(r.trace, EventKind::kCallbackStart);
  const long destroyed = Find(r.trace, EventKind::kCtxDestroy);
  ASSERT_GE(block, 0);
  EXPECT_EQ(r.trace[block].As<payload::Call>().call, DriverCall::kCtxDestroy);
  EXPECT_LT(block, cb);  // the callback ran while the destroyer was blocked
  EXPECT_LT(cb, destroyed);
  EXPECT_EQ(after,
            (std::vector<CuResult>{CuResult::kContextIsDestroyed, CuResult::kContextIsDestroyed,
                                   CuResult::kSuccess, CuResult::kContextIsDestroyed}));
}

TEST(SemSync, SEM15_DriverUseConcurrentWithTeardownIsFlagged) {
  Simulator sim;
  // T0 first, then T1, then the GPU: T1 calls while T0 is blocked in
  // cuCtxDestroy waiting for the kernel.
  testing::Priority strategy([&](ActorId a) {
    const absl::string_view n = sim.ActorName(a);
    if (n == "T0") return 0;
    if (n == "T1") return 1;
    return 2;
  });
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1, 1000), kLegacyStream);
    ThreadId t = h.Spawn("late", [&] {
      MemInfo info;
      d.MemGetInfo(&info);
    });
    d.CtxDestroy();
    h.Join(t);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  int flagged = 0;
  for (const Event& e : r.trace) {
    if (e.kind != EventKind::kDriverCall) continue;
    const auto call = e.As<payload::Call>();
    if (call.flags & kCallDuringTeardown) {
      ++flagged;
      EXPECT_EQ(call.call, DriverCall::kMemGetInfo);
    }
  }
  EXPECT_EQ(flagged, 1);
}

TEST(SemSync, SEM16_CallsFromSeveralThreadsAreAtomicAndOrderTheirStream) {
  Simulator sim;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    testing::SeededRandom strategy(seed);
    const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
      const testing::Opened o = testing::Open(d);
      std::vector<ThreadId> threads;
      for (std::uint32_t t = 0; t < 3; ++t) {
        threads.push_back(h.Spawn("launcher", [&d, &o, t] {
          for (std::uint32_t k = 0; k < 3; ++k) {
            EXPECT_EQ(
                d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, t * 10 + k, 5), kLegacyStream),
                CuResult::kSuccess);
          }
        }));
      }
      for (ThreadId t : threads) h.Join(t);
      EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    std::vector<std::uint32_t> enqueued, started;
    for (const Event& e : r.trace) {
      if (e.kind == EventKind::kKernelEnqueue) {
        enqueued.push_back(e.As<payload::Kernel>().region_tag);
      } else if (e.kind == EventKind::kKernelStart) {
        started.push_back(e.As<payload::Kernel>().region_tag);
      }
    }
    ASSERT_EQ(enqueued.size(), 9u);
    EXPECT_EQ(started, enqueued) << "seed " << seed;  // the stream runs in call order
  }
}

}  // namespace
}  // namespace stackcheck::sim
