// Determinism: the same scenario and schedule give the same trace and digest,
// over 1000+ random cases (scenario, policy, simulator modes, schedule seed),
// whether replayed on a reused simulator or a fresh one.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sim/event.h"
#include "sim/simulator.h"
#include "sim/strategies/rng.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

// The first event where two traces differ, for the failure message.
std::string FirstDifference(const std::vector<Event>& a, const std::vector<Event>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const Event& x = a[i];
    const Event& y = b[i];
    // Every word, whatever the kinds: the digest hashes them all.
    const EventWords wx = x.words();
    const EventWords wy = y.words();
    if (x.time_ns != y.time_ns || x.actor != y.actor || x.kind != y.kind || wx.a != wy.a ||
        wx.b != wy.b || wx.c != wy.c || wx.d != wy.d || wx.x != wy.x || wx.y != wy.y) {
      return absl::StrFormat("event %d: kind %d/%d actor %d/%d a %d/%d b %d/%d x %d/%d t %d/%d", i,
                             static_cast<int>(x.kind), static_cast<int>(y.kind), x.actor, y.actor,
                             wx.a, wy.a, wx.b, wy.b, wx.x, wy.x, x.time_ns, y.time_ns);
    }
  }
  return absl::StrFormat("lengths %d/%d", a.size(), b.size());
}

// --- random device/host programs -------------------------------------------------

// One step of a generated thread program.
struct Step {
  enum Kind : std::uint8_t {
    kLockUnlock,
    kAlloc,
    kFree,
    kLaunch,
    kTrap,
    kCallback,
    kHostFn,
    kRecordQuery,
    kStreamSync,
    kCtxSync,
    kSleep,
    kYield,
    kWaitEvent,
  };
  Kind kind;
  std::uint32_t arg;
};

struct Program {
  std::vector<std::vector<Step>> threads;
};

Program RandomProgram(Rng& rng) {
  Program p;
  const int threads = 1 + static_cast<int>(rng.Below(3));
  for (int t = 0; t < threads; ++t) {
    std::vector<Step> steps;
    const int n = 1 + static_cast<int>(rng.Below(8));
    for (int i = 0; i < n; ++i) {
      auto kind = static_cast<Step::Kind>(rng.Below(13));
      if (kind == Step::kTrap && rng.Below(3) != 0) kind = Step::kLaunch;  // rarer
      steps.push_back(Step{kind, static_cast<std::uint32_t>(rng.Below(1000))});
    }
    p.threads.push_back(std::move(steps));
  }
  return p;
}

// What callbacks and host functions touch.
struct World {
  Device* device = nullptr;
  Host* host = nullptr;
  Mutex* mutex = nullptr;
};

void RunSteps(const std::vector<Step>& steps, World& w, FunctionHandle kernel,
              const std::vector<StreamHandle>& streams, EventHandle event) {
  Device& d = *w.device;
  std::vector<DevicePtr> blocks;
  for (const Step& s : steps) {
    const StreamHandle stream = streams[s.arg % streams.size()];
    switch (s.kind) {
      case Step::kLockUnlock: {
        MutexLock lock(w.mutex);
        w.host->Yield();
        break;
      }
      case Step::kAlloc: {
        DevicePtr p = 0;
        if (d.MemAlloc(&p, (1 + s.arg % 7) * kMiB) == CuResult::kSuccess) blocks.push_back(p);
        break;
      }
      case Step::kFree:
        if (!blocks.empty()) {
          // Half the frees hold the lock callbacks take: the V1b hazard.
          if (s.arg % 2 == 1) w.mutex->Lock();
          d.MemFree(blocks.back());
          if (s.arg % 2 == 1) w.mutex->Unlock();
          blocks.pop_back();
        }
        break;
      case Step::kLaunch:
      case Step::kTrap: {
        KernelArgs args;
        args.stacks = blocks.empty() ? 0 : blocks.back();
        args.stack_size_per_warp = 128 * kKiB;
        args.region_tag = s.arg;
        args.duration_ns = 10 + s.arg;
        args.action = s.kind == Step::kTrap ? KernelAction::kTrap : KernelAction::kRun;
        d.LaunchKernel(kernel, Dim3{1 + s.arg % 3, 1, 1}, Dim3{32, 1 + s.arg % 2, 1}, args, stream);
        break;
      }
      case Step::kCallback:
        d.StreamAddCallback(
            stream,
            [](StreamHandle, CuResult, void* p) {
              World* world = static_cast<World*>(p);
              MutexLock lock(world->mutex);
            },
            &w);
        break;
      case Step::kHostFn:
        d.LaunchHostFunc(
            stream, [](void* p) { static_cast<World*>(p)->host->SleepFor(absl::Microseconds(3)); },
            &w);
        break;
      case Step::kRecordQuery:
        d.EventRecord(event, stream);
        d.EventQuery(event);
        break;
      case Step::kStreamSync:
        d.StreamSynchronize(stream);
        break;
      case Step::kCtxSync:
        d.CtxSynchronize();
        break;
      case Step::kSleep:
        w.host->SleepFor(absl::Nanoseconds(s.arg));
        break;
      case Step::kYield:
        w.host->Yield();
        break;
      case Step::kWaitEvent:
        d.StreamWaitEvent(stream, event);
        break;
    }
  }
  for (DevicePtr p : blocks) d.MemFree(p);
}

void RunProgram(const Program& program, Device& d, Host& h) {
  World world;
  world.device = &d;
  world.host = &h;
  std::unique_ptr<Mutex> mutex = h.NewMutex("shared");
  world.mutex = mutex.get();
  ModuleHandle module{};
  FunctionHandle kernel{};
  d.Init();
  d.CtxCreate();
  d.ModuleLoad(&module, kKernelImage);
  d.ModuleGetFunction(&kernel, module, kRegionKernel);
  std::vector<StreamHandle> streams{kLegacyStream, StreamHandle{}, StreamHandle{}};
  d.StreamCreate(&streams[1], StreamFlags::kBlocking);
  d.StreamCreate(&streams[2], StreamFlags::kNonBlocking);
  EventHandle event{};
  d.EventCreate(&event);
  std::vector<ThreadId> threads;
  for (std::size_t t = 1; t < program.threads.size(); ++t) {
    threads.push_back(
        h.Spawn("worker", [&, t] { RunSteps(program.threads[t], world, kernel, streams, event); }));
  }
  RunSteps(program.threads[0], world, kernel, streams, event);
  for (ThreadId t : threads) h.Join(t);
  d.CtxDestroy();
}

SimConfig RandomModes(Rng& rng) {
  SimConfig c;
  c.device_capacity = (8 + rng.Below(32)) * kMiB;
  c.modes.alloc_granularity = rng.Below(2) == 0 ? 2 * kMiB : 1;
  c.alloc_failure_at_call = static_cast<std::uint32_t>(rng.Below(4));
  c.modes.free_waits_for_streams = rng.Below(2) == 0;
  c.modes.serial_callback_thread = rng.Below(2) == 0;
  c.modes.trap_code = rng.Below(2) == 0 ? CuResult::kLaunchFailed : CuResult::kAssert;
  c.modes.step_bound = 5000;
  return c;
}

TEST(Determinism, SameProgramAndScheduleGiveTheSameTraceAndDigest) {
  Simulator reused;
  absl::flat_hash_set<std::uint64_t> digests;
  absl::flat_hash_set<std::string> properties;
  constexpr int kCases = 1500;
  for (int i = 0; i < kCases; ++i) {
    Rng rng(static_cast<std::uint64_t>(i));
    const Program program = RandomProgram(rng);
    const SimConfig config = RandomModes(rng);
    auto main_thread = [&](Device& d, Host& h, RuntimeObserver&) { RunProgram(program, d, h); };

    reused.set_config(config);
    testing::SeededRandom random(rng.Below(1u << 30));
    const ExecutionResult original = reused.Run(random, main_thread);  // a copy
    digests.insert(original.digest);
    if (original.violation.has_value()) properties.insert(original.violation->property);

    // Replayed on the same (reused) simulator...
    testing::Replay replay(original.choices);
    const ExecutionResult& again = reused.Run(replay, main_thread);
    ASSERT_TRUE(replay.exact()) << "case " << i;
    ASSERT_EQ(again.digest, original.digest)
        << "case " << i << ": " << FirstDifference(original.trace, again.trace);
    ASSERT_EQ(again.steps, original.steps) << "case " << i;

    // ...and on a fresh one.
    Simulator fresh(config);
    testing::Replay replay2(original.choices);
    const ExecutionResult& third = fresh.Run(replay2, main_thread);
    ASSERT_EQ(third.digest, original.digest)
        << "case " << i << ": " << FirstDifference(original.trace, third.trace);
    ASSERT_EQ(third.violation.has_value(), original.violation.has_value()) << "case " << i;
    if (third.violation.has_value()) {
      ASSERT_EQ(third.violation->message, original.violation->message) << "case " << i;
    }
  }
  // The digest tells executions apart, and the cases reach the engine's own
  // verdicts, not just happy paths.
  EXPECT_GT(digests.size(), static_cast<std::size_t>(kCases * 9 / 10));
  EXPECT_TRUE(properties.contains("no-deadlock"));
}

TEST(Determinism, DigestChangesWithTheSchedule) {
  Simulator sim;
  absl::flat_hash_set<std::uint64_t> digests;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    testing::SeededRandom strategy(seed);
    const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
      std::unique_ptr<Mutex> mu = h.NewMutex("m");
      ThreadId t = h.Spawn("a", [&] { MutexLock l(mu.get()); });
      { MutexLock l(mu.get()); }
      h.Join(t);
    });
    digests.insert(r.digest);
  }
  EXPECT_GT(digests.size(), 1u);
}

}  // namespace
}  // namespace stackcheck::sim
