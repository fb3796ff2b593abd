// SimHost: mutex ownership, threads, virtual time, the exit path, observer
// events.
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/probes.h"
#include "gtest/gtest.h"
#include "sim/event_payloads.h"
#include "sim/sim_host.h"
#include "sim/sim_test_util.h"
#include "sim/simulator.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

using testing::Count;
using testing::Find;

TEST(SimHost, NonOwnerUnlockReleasesTheMutexAndIsLogged) {
  Simulator sim;
  testing::NonPreemptive strategy;
  ThreadId owner_seen = 1234;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    mu->Lock();
    ThreadId t = h.Spawn("stranger", [&] { mu->Unlock(); });
    h.Join(t);
    owner_seen = mu->Owner();
    EXPECT_TRUE(mu->TryLock());
    mu->Unlock();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(owner_seen, kNoThread);
  const long unlock = Find(r.trace, EventKind::kMutexUnlock);
  ASSERT_GE(unlock, 0);
  EXPECT_EQ(sim.ActorName(r.trace[unlock].actor), "T1");
  EXPECT_EQ(r.trace[unlock].As<payload::MutexHeld>().owner, 0u);  // the owner before: T0 (actor 0)
}

TEST(SimHost, DestroyingALockedMutexIsLoggedWithItsOwner) {
  Simulator sim;
  testing::NonPreemptive strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    mu->Lock();
    mu.reset();
  });
  const long destroy = Find(r.trace, EventKind::kMutexDestroy);
  ASSERT_GE(destroy, 0);
  EXPECT_EQ(r.trace[destroy].As<payload::MutexHeld>().owner, 0u);
}

TEST(SimHost, ExitRunsHandlersInReverseOnTheCallerAndStopsEveryone) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::vector<int> order;
  bool other_ran_after_exit = false;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    h.AtExit([&] { order.push_back(1); });
    h.AtExit([&] { order.push_back(2); });
    std::unique_ptr<Mutex> mu = h.NewMutex("never");
    mu->Lock();
    h.Spawn("waiter", [&] {
      mu->Lock();  // never granted: T0 exits holding it
      other_ran_after_exit = true;
    });
    h.Yield();
    h.Exit(3);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
  EXPECT_TRUE(r.process_exited);
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_FALSE(other_ran_after_exit);
  EXPECT_EQ(r.trace.back().kind, EventKind::kProcessExit);
}

// The program T0 runs: T1 takes `steps` steps of its own while T0 exits.
void ExitBesideSteps(Host& h, int steps, int* taken) {
  h.Spawn("stepper", [&h, steps, taken] {
    for (int i = 0; i < steps; ++i) {
      h.Yield();
      ++*taken;
    }
  });
  h.Exit(4);
}

TEST(SimHost, AnExitsEndWaitsUntilNoOtherThreadCanMove) {
  Simulator sim;
  testing::NonPreemptive strategy;
  int taken = 0;
  const ExecutionResult& r =
      sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) { ExitBesideSteps(h, 3, &taken); });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(r.exit_status, 4);
  // T0 ran on through its exit, then T1 took every step before the end.
  EXPECT_EQ(taken, 3);
  const long done = Find(r.trace, EventKind::kExitHandlersDone);
  ASSERT_GE(done, 0);
  EXPECT_EQ(sim.ActorName(r.trace[done].actor), "T0");
  EXPECT_EQ(r.trace.back().kind, EventKind::kProcessExit);
  EXPECT_EQ(sim.ActorName(r.trace.back().actor), "T0");

  // Cutting at every step, the same schedule ends right after the handlers.
  SimConfig cuts;
  cuts.exit_cuts_every_step = true;
  sim.set_config(cuts);
  taken = 0;
  const ExecutionResult& cut =
      sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) { ExitBesideSteps(h, 3, &taken); });
  EXPECT_EQ(taken, 0);
  EXPECT_EQ(Count(cut.trace, EventKind::kExitHandlersDone), 0);
}

// Two exits: each runs what handlers are left and marks where the process
// may end; the end waits for both, and a search orders the two exit steps
// either way (they write the process object) but cuts neither thread.
TEST(SimHost, TwoExitsBothReachTheirEndBeforeTheProcessEnds) {
  Simulator sim;
  DfsStrategy dfs(DfsStrategy::Options{});
  std::set<std::string> first_exiters;
  std::uint64_t executions = 0;
  while (dfs.NewExecution()) {
    int handlers_run = 0;
    const ExecutionResult& r = sim.Run(dfs, [&](Device&, Host& h, RuntimeObserver&) {
      h.AtExit([&] { ++handlers_run; });
      h.Spawn("second", [&] { h.Exit(2); });
      h.Exit(1);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    EXPECT_EQ(handlers_run, 1);
    EXPECT_EQ(Count(r.trace, EventKind::kExitHandlersDone), 2);
    const long done = Find(r.trace, EventKind::kExitHandlersDone);
    first_exiters.insert(std::string(sim.ActorName(r.trace[done].actor)));
    EXPECT_EQ(r.trace.back().kind, EventKind::kProcessExit);
    ++executions;
  }
  EXPECT_EQ(first_exiters, (std::set<std::string>{"T0", "T1"}));
  EXPECT_LE(executions, 3u);
}

// DPOR tries no cut of T1 when the end waits for it; cutting at every step
// it tries each of T1's remaining points.
std::uint64_t DporExecutionsBesideAnExit(bool cuts) {
  Simulator sim;
  SimConfig config;
  config.exit_cuts_every_step = cuts;
  sim.set_config(config);
  DfsStrategy dfs(DfsStrategy::Options{});
  std::uint64_t executions = 0;
  std::set<int> taken_seen;
  while (dfs.NewExecution()) {
    int taken = 0;
    const ExecutionResult& r =
        sim.Run(dfs, [&](Device&, Host& h, RuntimeObserver&) { ExitBesideSteps(h, 3, &taken); });
    EXPECT_FALSE(r.violation.has_value()) << r.violation->message;
    taken_seen.insert(taken);
    ++executions;
  }
  EXPECT_TRUE(dfs.exhausted());
  if (cuts) {
    EXPECT_EQ(taken_seen, (std::set<int>{0, 1, 2, 3}));
  } else {
    EXPECT_EQ(taken_seen, (std::set<int>{3}));
  }
  return executions;
}

TEST(SimHost, AnEndAtRestSparesTheSearchEveryCut) {
  EXPECT_EQ(DporExecutionsBesideAnExit(/*cuts=*/false), 1u);
  EXPECT_GE(DporExecutionsBesideAnExit(/*cuts=*/true), 4u);
}

// Two threads' messages about a sticky error are steps that conflict: a
// search shows the user either order. Messages with other codes are never an
// abort's report, and stay in the step before them.
TEST(SimHost, MessagesAreOrderedEitherWayByASearch) {
  Simulator sim;
  DfsStrategy dfs(DfsStrategy::Options{});
  std::set<std::string> firsts;
  while (dfs.NewExecution()) {
    const ExecutionResult& r = sim.Run(dfs, [&](Device&, Host& h, RuntimeObserver& o) {
      ThreadId t = h.Spawn("other", [&o] { o.ErrorReported(CuResult::kLaunchFailed, "b"); });
      o.ErrorReported(CuResult::kLaunchFailed, "a");
      h.Join(t);
    });
    const long first = Find(r.trace, EventKind::kErrorReported);
    ASSERT_GE(first, 0);
    firsts.insert(std::string(sim.ActorName(r.trace[first].actor)));
  }
  EXPECT_EQ(firsts, (std::set<std::string>{"T0", "T1"}));

  std::uint64_t executions = 0;
  DfsStrategy other_codes(DfsStrategy::Options{});
  while (other_codes.NewExecution()) {
    sim.Run(other_codes, [&](Device&, Host& h, RuntimeObserver& o) {
      ThreadId t = h.Spawn("other", [&o] { o.ErrorReported(CuResult::kOutOfMemory, "b"); });
      o.ErrorReported(CuResult::kOutOfMemory, "a");
      h.Join(t);
    });
    ++executions;
  }
  EXPECT_EQ(executions, 1u);
}

TEST(SimHost, SleepAdvancesVirtualTimeNotWallTime) {
  Simulator sim;
  testing::NonPreemptive strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    h.SleepFor(absl::Hours(2));
    h.Yield();
  });
  ASSERT_FALSE(r.violation.has_value());
  EXPECT_GE(r.trace.back().time_ns, 7200ull * 1000 * 1000 * 1000);
}

TEST(SimHost, ObserverCallsBecomeEventsAndProbesGetStableIds) {
  Simulator sim;
  testing::NonPreemptive strategy;
  for (int i = 0; i < 2; ++i) {
    const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host&, RuntimeObserver& o) {
      o.RegionBegin(4, 64);
      o.Probe("oom-retry");
      o.Probe("grow");
      o.CacheHeld(10);
      o.FatalReported(4, CuResult::kLaunchFailed, "boom");
      o.RegionEnd(4);
    });
    EXPECT_EQ(Count(r.trace, EventKind::kProbe), 2);
    const long probe = Find(r.trace, EventKind::kProbe);
    EXPECT_EQ(sim.probes().Name(r.trace[probe].As<payload::Probe>().probe), "oom-retry");
    // The known probes are registered first, in kAllProbes' order.
    EXPECT_EQ(sim.probes().Find("grow"), static_cast<long>(std::size(kAllProbes)));
    const long fatal = Find(r.trace, EventKind::kFatalReported);
    const auto reported = r.trace[fatal].As<payload::Reported>();
    EXPECT_EQ(reported.region, 4u);
    EXPECT_EQ(reported.code, CuResult::kLaunchFailed);
  }
  EXPECT_EQ(sim.probes().size(), std::size(kAllProbes) + 1);
}

TEST(SimHost, ExceptionsInSimulatedCodeBecomeViolations) {
  Simulator sim;
  testing::NonPreemptive strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    h.Yield();
    throw std::runtime_error("bad");
  });
  ASSERT_TRUE(r.violation.has_value());
  EXPECT_EQ(r.violation->property, "no-exception");
  EXPECT_TRUE(absl::StrContains(r.violation->message, "T0 threw: bad"));
}

}  // namespace
}  // namespace stackcheck::sim

namespace stackcheck::sim {
namespace {

struct Holder {
  Mutex* mutex = nullptr;
};

TEST(SimHost, MutexUsedAfterDestroyIsLoggedNotACrash) {
  Simulator sim;
  // GPU and callback first, so the callback runs after T0 destroyed the lock.
  testing::NonPreemptive strategy;
  Holder holder;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver&) {
    testing::Open(d);
    std::unique_ptr<Mutex> mu = h.NewMutex("stacks");
    holder.mutex = mu.get();
    mu->Lock();
    d.StreamAddCallback(
        kLegacyStream,
        [](StreamHandle, CuResult, void* p) {
          static_cast<Holder*>(p)->mutex->Unlock();  // V1a: unlock from the callback
        },
        &holder);
    mu.reset();  // destroyed while locked, before the callback ran
    d.CtxSynchronize();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  const long destroy = Find(r.trace, EventKind::kMutexDestroy);
  const long unlock = Find(r.trace, EventKind::kMutexUnlock);
  ASSERT_GE(destroy, 0);
  EXPECT_LT(destroy, unlock);
  EXPECT_EQ(r.trace[unlock].As<payload::Mutex>().mutex,
            r.trace[destroy].As<payload::Mutex>().mutex);
  EXPECT_EQ(sim.ActorName(r.trace[unlock].actor), "callback");
}

// A timed wait (a real program's pthread_cond_timedwait): woken when a
// WakeQueue reaches it, timed out only when nothing else can move.
TEST(SimHost, TimedWaitIsWokenOrExpiresWhenNothingElseCanMove) {
  Simulator sim;
  int woken = 0, expired = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    testing::SeededRandom strategy(seed);
    bool result = false;
    const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
      auto& host = static_cast<SimHost&>(h);
      const std::uint32_t queue = host.NewWaitQueue("cv");
      ThreadId t = h.Spawn("signaller",
                           [&] { host.ProgramCall("signal", queue, host.WakeQueue(queue, 1)); });
      host.ProgramCall("timedwait", queue);
      result = host.WaitOnQueueOrTimeOut(queue);
      h.Join(t);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    (result ? woken : expired)++;
    // A wake-up reached the waiter exactly when it returned true.
    EXPECT_EQ(Count(r.trace, EventKind::kWaitQueueWake), result ? 1 : 0);
  }
  EXPECT_GT(woken, 0);    // the signal came while it waited
  EXPECT_GT(expired, 0);  // the signal came first and woke nobody
}

TEST(SimHost, ExpiringTimedWaitsAreAChoice) {
  Simulator sim;
  int first_expired[2] = {0, 0};
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    testing::SeededRandom strategy(seed);
    std::vector<int> order;
    const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
      auto& host = static_cast<SimHost&>(h);
      const std::uint32_t queue = host.NewWaitQueue("cv");
      auto waiter = [&](int who) {
        EXPECT_FALSE(host.WaitOnQueueOrTimeOut(queue));
        order.push_back(who);
      };
      ThreadId a = h.Spawn("a", [&] { waiter(0); });
      ThreadId b = h.Spawn("b", [&] { waiter(1); });
      h.Join(a);
      h.Join(b);
    });
    ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
    ASSERT_EQ(order.size(), 2u);
    first_expired[order[0]]++;
  }
  EXPECT_GT(first_expired[0], 0);
  EXPECT_GT(first_expired[1], 0);
}

TEST(SimHost, ReadUnderWaitsForTheHolderAndReadsWhatItWrote) {
  Simulator sim;
  // The reader first whenever it can move: it meets the lock held.
  testing::Priority strategy([](ActorId actor) { return actor == 0 ? 1 : 0; });
  int seen = -1;
  int value = 0;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    mu->Lock();
    ThreadId reader = h.Spawn("reader", [&] { mu->ReadUnder([&] { seen = value; }); });
    value = 1;
    mu->Unlock();
    h.Join(reader);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(Count(r.trace, EventKind::kMutexBlock), 1);
  const long pass = Find(r.trace, EventKind::kMutexPass);
  ASSERT_GE(pass, 0);
  EXPECT_GT(pass, Find(r.trace, EventKind::kMutexUnlock));
}

// Lets the spawned thread take its first step (it runs to its exit() and
// waits there), then prefers T0 (actor 0); records what each point offers.
class FirstStepThenMain : public testing::NonPreemptive {
 public:
  std::size_t NextActor(const SchedulingPoint& point) override {
    offered.emplace_back(point.runnable.begin(), point.runnable.end());
    for (std::size_t i = 0; i < point.runnable.size(); ++i) {
      if (point.runnable[i].actor != 0 && !spawned_started) {
        spawned = point.runnable[i].actor;
        return spawned_started = true, i;
      }
    }
    for (std::size_t i = 0; i < point.runnable.size(); ++i) {
      if (point.runnable[i].actor == 0) return i;
    }
    return 0;
  }
  bool spawned_started = false;
  ActorId spawned = kNoActor;
  std::vector<std::vector<Candidate>> offered;
};

TEST(SimHost, AnExitOvertakenByAnotherIsRedeclaredAsEndingTheProcess) {
  // Ending at once after the handlers, as a real program's exit does.
  SimConfig cuts;
  cuts.exit_cuts_every_step = true;
  Simulator sim(cuts);
  FirstStepThenMain strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    h.AtExit([&] { mu->Lock(); });  // a point inside the handler
    h.Spawn("second", [&] { h.Exit(2); });
    h.Exit(1);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(r.exit_status, 1);
  // Waiting at its exit() while none had run, T1 only starts the handlers
  // (the process object); once T0's exit ran, the same step ends the process.
  ASSERT_NE(strategy.spawned, kNoActor);
  const std::uint32_t process = ObjectId(ObjectKind::kProcess, 0);
  int first = 0, ending = 0;
  for (const std::vector<Candidate>& point : strategy.offered) {
    for (const Candidate& c : point) {
      if (c.actor != strategy.spawned || c.next.count != 1) continue;
      if (c.next.accesses[0].object == process) ++first;
      if (c.next.accesses[0].object == kGlobalObject && first > 0) ++ending;
    }
  }
  EXPECT_GT(first, 0);
  EXPECT_GT(ending, 0);
}

}  // namespace
}  // namespace stackcheck::sim
