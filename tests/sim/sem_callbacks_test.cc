// SEM-07 the callback thread, SEM-08 a callback occupies its stream, SEM-09 no
// driver calls from callback context.
#include <functional>
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

struct Context {
  Device* device = nullptr;
  Host* host = nullptr;
  Mutex* mutex = nullptr;
  bool started = false;
  std::vector<CuResult> results;
};

void SleepingCallback(StreamHandle, CuResult, void* p) {
  static_cast<Context*>(p)->host->SleepFor(absl::Microseconds(5));
}

// Two non-blocking streams, a sleeping callback on each, then a context-wide
// synchronisation: whether the callbacks overlap is up to the callback mode.
std::function<void(Device&, Host&, RuntimeObserver&)> TwoSleepingCallbacks(Context& ctx) {
  return [&ctx](Device& d, Host& h, RuntimeObserver&) {
    testing::Open(d);
    ctx.host = &h;
    StreamHandle a{}, b{};
    d.StreamCreate(&a, StreamFlags::kNonBlocking);
    d.StreamCreate(&b, StreamFlags::kNonBlocking);
    d.StreamAddCallback(a, SleepingCallback, &ctx);
    d.StreamAddCallback(b, SleepingCallback, &ctx);
    EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
  };
}

TEST(SemCallbacks, SEM07_CallbacksRunOnTheDriverThreadSeriallyByDefault) {
  Simulator sim;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    testing::SeededRandom strategy(seed);
    Context ctx;
    const ExecutionResult& r = sim.Run(strategy, TwoSleepingCallbacks(ctx));
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    const long start1 = Find(r.trace, EventKind::kCallbackStart);
    const long end1 = Find(r.trace, EventKind::kCallbackEnd);
    const long start2 = Find(r.trace, EventKind::kCallbackStart, start1 + 1);
    ASSERT_GE(start2, 0);
    EXPECT_LT(end1, start2) << "serial callbacks overlapped, seed " << seed;
    EXPECT_EQ(sim.ActorName(r.trace[start1].actor), "callback");
    EXPECT_EQ(sim.ActorName(r.trace[start2].actor), "callback");
  }
}

TEST(SemCallbacks, SEM07_ConcurrentModeRunsIndependentCallbacksTogether) {
  SimConfig config;
  config.modes.serial_callback_thread = false;
  Simulator sim(config);
  bool overlapped = false;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    testing::SeededRandom strategy(seed);
    Context ctx;
    const ExecutionResult& r = sim.Run(strategy, TwoSleepingCallbacks(ctx));
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    const long start1 = Find(r.trace, EventKind::kCallbackStart);
    const long end1 = Find(r.trace, EventKind::kCallbackEnd);
    const long start2 = Find(r.trace, EventKind::kCallbackStart, start1 + 1);
    ASSERT_GE(start2, 0);
    EXPECT_TRUE(absl::StartsWith(sim.ActorName(r.trace[start1].actor), "callback"));
    EXPECT_NE(r.trace[start1].actor, 0u);  // never the enqueuing thread
    if (start2 < end1) overlapped = true;
  }
  EXPECT_TRUE(overlapped);
}

TEST(SemCallbacks, SEM08_RunningCallbackHoldsItsStreamAndTheLegacyStream) {
  Simulator sim;
  // GPU, then the callback thread, then host threads: the callback starts as
  // soon as it can.
  testing::Priority strategy([&](ActorId a) {
    const absl::string_view n = sim.ActorName(a);
    if (absl::StartsWith(n, "gpu")) return 0;
    if (n == "callback") return 1;
    return 2;
  });
  Context ctx;
  CuResult stream_query = CuResult::kSuccess, event_query = CuResult::kSuccess;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    std::unique_ptr<Mutex> mu = h.NewMutex("gate");
    ctx.mutex = mu.get();
    ctx.host = &h;
    mu->Lock();
    StreamHandle s{};
    d.StreamCreate(&s, StreamFlags::kBlocking);
    EventHandle e{};
    d.EventCreate(&e);
    d.StreamAddCallback(
        s,
        [](StreamHandle, CuResult, void* p) {
          auto* c = static_cast<Context*>(p);
          c->started = true;
          c->mutex->Lock();  // held by T0: the callback stays running
          c->mutex->Unlock();
        },
        &ctx);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 1), s);  // kernel 0
    d.EventRecord(e, s);
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(0, 2), kLegacyStream);  // kernel 1
    while (!ctx.started) h.Yield();
    for (int i = 0; i < 10; ++i) h.Yield();  // give the GPU every chance
    stream_query = d.StreamQuery(s);
    event_query = d.EventQuery(e);
    mu->Unlock();
    EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(stream_query, CuResult::kNotReady);
  EXPECT_EQ(event_query, CuResult::kNotReady);
  const long cb_end = Find(r.trace, EventKind::kCallbackEnd);
  long first_start = Find(r.trace, EventKind::kKernelStart);
  ASSERT_GE(cb_end, 0);
  EXPECT_LT(cb_end, first_start);  // neither its stream's kernel nor the legacy one
  EXPECT_LT(cb_end, Find(r.trace, EventKind::kEventComplete));
}

TEST(SemCallbacks, SEM09_DriverCallsFromCallbackAreRefusedAndFlagged) {
  Simulator sim;
  testing::NonPreemptive strategy;
  Context ctx;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    ctx.device = &d;
    static FunctionHandle kernel;
    kernel = o.kernel;
    d.StreamAddCallback(
        kLegacyStream,
        [](StreamHandle, CuResult, void* p) {
          auto* c = static_cast<Context*>(p);
          Device& dev = *c->device;
          DevicePtr ptr = 0;
          StreamHandle s{};
          c->results.push_back(dev.MemAlloc(&ptr, kMiB));
          c->results.push_back(dev.MemFree(0x1000));
          c->results.push_back(dev.MemFreeAsync(0x1000, kLegacyStream));
          c->results.push_back(
              dev.LaunchKernel(kernel, Grid(1), Warps(1), Args(0, 1), kLegacyStream));
          c->results.push_back(dev.CtxSynchronize());
          c->results.push_back(dev.StreamCreate(&s, StreamFlags::kBlocking));
          c->results.push_back(dev.StreamAddCallback(
              kLegacyStream, [](StreamHandle, CuResult, void*) {}, nullptr));
          c->results.push_back(dev.LaunchHostFunc(
              kLegacyStream, [](void*) {}, nullptr));
        },
        &ctx);
    EXPECT_EQ(d.CtxSynchronize(), CuResult::kSuccess);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  ASSERT_EQ(ctx.results.size(), 8u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(ctx.results[i], CuResult::kNotPermitted) << i;
  EXPECT_EQ(ctx.results[6], CuResult::kSuccess);  // cuStreamAddCallback
  // cuLaunchHostFunc from a callback: 800 on the H200 (driver 580.159.04).
  EXPECT_EQ(ctx.results[7], CuResult::kNotPermitted);
  int flagged = 0;
  for (const Event& e : r.trace) {
    if (e.kind == EventKind::kDriverCall && (e.As<payload::Call>().flags & kCallFromCallback)) {
      ++flagged;
      EXPECT_EQ(sim.ActorName(e.actor), "callback");
    }
  }
  EXPECT_EQ(flagged, 8);
  EXPECT_EQ(Count(r.trace, EventKind::kCallbackStart), 2);  // the late add ran
  EXPECT_EQ(Count(r.trace, EventKind::kHostFnStart), 0);
}

TEST(SemCallbacks, SEM09_StreamSynchronizeFromCallbackHangsAsDeadlock) {
  Simulator sim;
  testing::NonPreemptive strategy;
  Context ctx;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    testing::Open(d);
    ctx.device = &d;
    d.StreamAddCallback(
        kLegacyStream,
        [](StreamHandle, CuResult, void* p) {
          static_cast<Context*>(p)->device->StreamSynchronize(kLegacyStream);
        },
        &ctx);
    d.CtxSynchronize();
  });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "no-deadlock");
  EXPECT_TRUE(absl::StrContains(r.violation->message, "callback waits in cuStreamSynchronize"))
      << r.violation->message;
}

}  // namespace
}  // namespace stackcheck::sim
