#include "sim/strategies/dfs_strategy.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "sim/strategies/small_systems.h"
#include "sim/strategies/split_tree.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim {
namespace {

using toy::Choose;
using toy::Exit;
using toy::Lock;
using toy::Read;
using toy::SmallSystems;
using toy::System;
using toy::Unlock;
using toy::Write;

std::uint32_t SameObject(int, int) { return 1; }
std::uint32_t OwnObject(int thread, int) { return thread + 1; }

struct Exploration {
  std::size_t executions = 0;
  std::set<std::uint64_t> finals;
  bool exhausted = false;
  bool deadlock_found = false;
  DfsStrategy::Stats stats;
};

Exploration Explore(const System& system, DfsStrategy::Options options) {
  DfsStrategy dfs(options);
  Exploration e;
  for (const toy::Outcome& o : toy::RunAll(system, dfs)) {
    EXPECT_EQ(o.error, "");
    ++e.executions;
    e.finals.insert(o.FinalState());
    e.deadlock_found |= o.deadlock;
  }
  EXPECT_TRUE(dfs.status().ok()) << dfs.status();
  e.exhausted = dfs.exhausted();
  e.stats = dfs.stats();
  EXPECT_EQ(e.stats.executions, e.executions);
  return e;
}

DfsStrategy::Options Plain(int bound = -1) {
  DfsStrategy::Options o;
  o.sleep_sets = false;
  o.preemption_bound = bound;
  return o;
}

DfsStrategy::Options Sleep(int bound = -1) {
  DfsStrategy::Options o;
  o.sleep_sets = true;
  o.dpor = false;
  o.preemption_bound = bound;
  return o;
}

DfsStrategy::Options Dpor() {
  DfsStrategy::Options o;
  o.sleep_sets = true;
  o.dpor = true;
  return o;
}

TEST(DfsStrategy, PlainEnumeratesEveryInterleaving) {
  // Multinomial counts: (2+2)!/(2!2!) = 6, 3!/1 = 6, (3+3)!/(3!3!) = 20.
  Exploration two_by_two = Explore(toy::Writers(2, 2, SameObject), Plain());
  EXPECT_EQ(two_by_two.executions, 6u);
  EXPECT_EQ(two_by_two.finals.size(), 6u);
  EXPECT_TRUE(two_by_two.exhausted);
  EXPECT_EQ(Explore(toy::Writers(3, 1, SameObject), Plain()).executions, 6u);
  Exploration two_by_three = Explore(toy::Writers(2, 3, SameObject), Plain());
  EXPECT_EQ(two_by_three.executions, 20u);
  EXPECT_EQ(two_by_three.finals.size(), 20u);
}

TEST(DfsStrategy, SleepSetsPruneNothingWhenAllStepsConflict) {
  Exploration e = Explore(toy::Writers(2, 2, SameObject), Sleep());
  EXPECT_EQ(e.executions, 6u);
  EXPECT_EQ(e.finals.size(), 6u);
  EXPECT_EQ(e.stats.sleep_blocked, 0u);
  EXPECT_TRUE(e.exhausted);
}

TEST(DfsStrategy, SleepSetsPruneIndependentSteps) {
  const System independent = toy::Writers(2, 2, OwnObject);
  Exploration plain = Explore(independent, Plain());
  Exploration sleep = Explore(independent, Sleep());
  EXPECT_EQ(plain.executions, 6u);
  EXPECT_EQ(plain.finals.size(), 1u);
  EXPECT_LT(sleep.executions, plain.executions);
  EXPECT_EQ(sleep.finals, plain.finals);
  EXPECT_TRUE(sleep.exhausted);
  // Three independent threads of three steps: 1680 interleavings, all equal.
  const System wide = toy::Writers(3, 3, OwnObject);
  Exploration wide_plain = Explore(wide, Plain());
  Exploration wide_sleep = Explore(wide, Sleep());
  EXPECT_EQ(wide_plain.executions, 1680u);
  EXPECT_LE(wide_sleep.executions * 10, wide_plain.executions);
  EXPECT_EQ(wide_sleep.finals, wide_plain.finals);
}

TEST(DfsStrategy, SleepSetsKeepEveryFinalStateOfAMixedSystem) {
  // Reads of the same object commute; the writes to 2 order the readers.
  System system;
  system.threads.push_back({{Read(1), Write(2), Read(3)}});
  system.threads.push_back({{Read(1), Read(2), Write(4)}});
  system.threads.push_back({{Write(3), Read(1)}});
  Exploration plain = Explore(system, Plain());
  Exploration sleep = Explore(system, Sleep());
  EXPECT_EQ(sleep.finals, plain.finals);
  EXPECT_GT(plain.finals.size(), 1u);
  EXPECT_LT(sleep.executions, plain.executions);
}

TEST(DfsStrategy, DporRunsOneExecutionPerTraceOfASmallSystem) {
  // Three orderings matter (T2's write of 1 against each read of 1 by T0
  // and T1, T1's write of 2 against T0's read of 2): 2^3 = 8 traces, and
  // plain DFS's 90 interleavings reach exactly 8 final states.
  System system;
  system.threads.push_back({{Read(1), Read(2)}});
  system.threads.push_back({{Read(1), Write(2)}});
  system.threads.push_back({{Read(1), Write(1)}});
  Exploration plain = Explore(system, Plain());
  Exploration sleep = Explore(system, Sleep());
  // Toy executions end only when every thread is done: no last-step race.
  DfsStrategy::Options exact = Dpor();
  exact.last_step_global = false;
  Exploration dpor = Explore(system, exact);
  EXPECT_EQ(plain.executions, 90u);
  EXPECT_EQ(plain.finals.size(), 8u);
  EXPECT_EQ(sleep.finals, plain.finals);
  EXPECT_EQ(dpor.finals, plain.finals);
  EXPECT_EQ(dpor.executions, 8u);
  EXPECT_EQ(dpor.stats.sleep_blocked, 0u);
  EXPECT_LT(dpor.executions, sleep.executions);
}

TEST(DfsStrategy, DporRunsOneExecutionForIndependentThreads) {
  const System wide = toy::Writers(3, 3, OwnObject);
  DfsStrategy::Options exact = Dpor();
  exact.last_step_global = false;
  Exploration dpor = Explore(wide, exact);
  EXPECT_EQ(dpor.executions, 1u);
  EXPECT_TRUE(dpor.exhausted);
  // Counting the last step as global (the engine's setting) costs executions
  // but loses no final state.
  Exploration conservative = Explore(wide, Dpor());
  EXPECT_EQ(conservative.finals, dpor.finals);
  EXPECT_TRUE(conservative.exhausted);
}

TEST(DfsStrategy, AnExitCutsTheOtherThreadShortAtEveryPoint) {
  // T0 exits: the process ends and nobody moves again. Its footprint (the
  // process object) is independent of T1's writes, yet it disables them, so
  // 0, 1 or 2 writes come first: three final states. Explored first, an exit
  // put to sleep in T1's subtree would stay asleep across T1's first write
  // and lose "one write, then the exit".
  System system;
  system.threads.push_back({{Exit(9)}});
  system.threads.push_back({{Write(1), Write(1)}});
  Exploration plain = Explore(system, Plain());
  EXPECT_EQ(plain.finals.size(), 3u);
  EXPECT_EQ(Explore(system, Sleep()).finals, plain.finals);
  EXPECT_EQ(Explore(system, Sleep(1)).finals, plain.finals);
  EXPECT_EQ(Explore(system, Dpor()).finals, plain.finals);
}

TEST(DfsStrategy, DporIsOffUnderAPreemptionBound) {
  DfsStrategy::Options options = Dpor();
  EXPECT_STREQ(DfsStrategy(options).reduction(), "dpor + sleep sets");
  options.preemption_bound = 2;
  EXPECT_STREQ(DfsStrategy(options).reduction(), "sleep sets");
  EXPECT_STREQ(DfsStrategy(Plain()).reduction(), "none");
}

TEST(DfsStrategy, PreemptionBoundLimitsInterleavings) {
  // 2 threads x 2 dependent steps: AABB and BBAA need no preemption, ABBA
  // and BAAB one, ABAB and BABA two.
  const System system = toy::Writers(2, 2, SameObject);
  Exploration b0 = Explore(system, Plain(0));
  Exploration b1 = Explore(system, Plain(1));
  Exploration b2 = Explore(system, Plain(2));
  EXPECT_EQ(b0.executions, 2u);
  EXPECT_EQ(b1.executions, 4u);
  EXPECT_EQ(b2.executions, 6u);
  EXPECT_TRUE(b0.exhausted);
  EXPECT_GT(b0.stats.bound_pruned, 0u);
  EXPECT_EQ(b2.stats.bound_pruned, 0u);
  EXPECT_EQ(Explore(system, Sleep(1)).finals, b1.finals);
}

TEST(DfsStrategy, BoundCutIsReported) {
  DfsStrategy dfs(Plain(0));
  toy::RunAll(toy::Writers(2, 2, SameObject), dfs);
  EXPECT_TRUE(dfs.exhausted());
  EXPECT_TRUE(dfs.bound_cut());
  DfsStrategy unbounded(Plain(5));
  toy::RunAll(toy::Writers(2, 2, SameObject), unbounded);
  EXPECT_TRUE(unbounded.exhausted());
  EXPECT_FALSE(unbounded.bound_cut());
}

TEST(DfsStrategy, IterativeBoundingRunsRoundsUntilNothingIsCut) {
  DfsStrategy::Options options = Plain(5);
  options.iterative_bounding = true;
  DfsStrategy dfs(options);
  std::vector<toy::Outcome> outcomes = toy::RunAll(toy::Writers(2, 2, SameObject), dfs);
  // Rounds with bound 0, 1, 2 (2 + 4 + 6); bound 2 cuts nothing, so stop.
  EXPECT_EQ(outcomes.size(), 12u);
  EXPECT_EQ(dfs.stats().rounds, 3);
  EXPECT_EQ(dfs.current_bound(), 2);
  EXPECT_TRUE(dfs.exhausted());
  EXPECT_FALSE(dfs.bound_cut());
}

TEST(DfsStrategy, NumbersAreBranchingPoints) {
  System system;
  system.threads.push_back({{Choose(1, 3), Choose(2, 2)}});
  Exploration e = Explore(system, Sleep());
  EXPECT_EQ(e.executions, 6u);
  EXPECT_EQ(e.finals.size(), 6u);
  // With a second thread touching neither object, sleep sets still keep all.
  system.threads.push_back({{Write(3)}});
  EXPECT_EQ(Explore(system, Sleep()).finals.size(), 6u);
  EXPECT_EQ(Explore(system, Plain()).finals.size(), 6u);
}

TEST(DfsStrategy, BlockedActorsAreNotOffered) {
  System system;
  for (int t = 0; t < 2; ++t) {
    system.threads.push_back({{Lock(9), Write(1), Unlock(9)}});
  }
  for (const DfsStrategy::Options& options : {Plain(), Sleep(), Dpor()}) {
    DfsStrategy dfs(options);
    std::set<std::uint64_t> finals;
    for (const toy::Outcome& o : toy::RunAll(system, dfs)) {
      EXPECT_FALSE(o.deadlock);
      finals.insert(o.FinalState());
    }
    EXPECT_TRUE(dfs.exhausted());
    // One critical section after the other, in either order.
    EXPECT_EQ(finals.size(), 2u);
  }
}

TEST(DfsStrategy, FindsALockOrderDeadlockWithAndWithoutSleepSets) {
  System system;
  system.threads.push_back({{Lock(8), Lock(9), Unlock(9), Unlock(8)}});
  system.threads.push_back({{Lock(9), Lock(8), Unlock(8), Unlock(9)}});
  EXPECT_TRUE(Explore(system, Plain()).deadlock_found);
  EXPECT_TRUE(Explore(system, Sleep()).deadlock_found);
  EXPECT_TRUE(Explore(system, Sleep(1)).deadlock_found);
  EXPECT_TRUE(Explore(system, Dpor()).deadlock_found);
}

TEST(DfsStrategy, BudgetStopsWithoutExhausting) {
  DfsStrategy::Options options = Plain();
  options.max_executions = 4;
  DfsStrategy dfs(options);
  EXPECT_EQ(toy::RunAll(toy::Writers(2, 3, SameObject), dfs).size(), 4u);
  EXPECT_FALSE(dfs.exhausted());
}

TEST(DfsStrategy, MaxDepthMakesTheSearchIncomplete) {
  DfsStrategy::Options options = Plain();
  options.max_depth = 2;
  DfsStrategy dfs(options);
  std::vector<toy::Outcome> outcomes = toy::RunAll(toy::Writers(2, 2, SameObject), dfs);
  EXPECT_EQ(outcomes.size(), 4u);  // the first two choices: AA, AB, BA, BB
  EXPECT_TRUE(dfs.exhausted());
  EXPECT_TRUE(dfs.bound_cut());
  EXPECT_GT(dfs.stats().depth_cut, 0u);
}

TEST(DfsStrategy, ReportsAnEngineThatIsNotDeterministic) {
  DfsStrategy dfs(Plain());
  const System two = toy::Writers(2, 2, SameObject);
  const System three = toy::Writers(3, 2, SameObject);
  ASSERT_TRUE(dfs.NewExecution());
  toy::Run(two, dfs);
  ASSERT_TRUE(dfs.NewExecution());
  toy::Run(three, dfs);  // the "same" program now has another actor
  EXPECT_FALSE(dfs.NewExecution());
  EXPECT_FALSE(dfs.exhausted());
  EXPECT_EQ(dfs.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(dfs.status().message().find("execution 2 is not deterministic"), std::string::npos)
      << dfs.status();
}

TEST(DfsStrategy, ChoicesOfAnExecutionReplayIt) {
  DfsStrategy dfs(Sleep());
  const System system = toy::Writers(2, 2, SameObject);
  std::vector<std::vector<std::uint64_t>> seen;
  while (dfs.NewExecution()) {
    toy::Outcome o = toy::Run(system, dfs);
    EXPECT_EQ(dfs.choices(), o.choices);
    seen.push_back(o.choices);
  }
  EXPECT_EQ(std::set<std::vector<std::uint64_t>>(seen.begin(), seen.end()).size(), seen.size());
}

RC_GTEST_PROP(DfsStrategyProperty, SleepSetsReachEveryFinalStateOfPlainDfs, ()) {
  const System system = *SmallSystems();
  const Exploration plain = Explore(system, Plain());
  const Exploration sleep = Explore(system, Sleep());
  RC_ASSERT(plain.exhausted && sleep.exhausted);
  RC_ASSERT(sleep.finals == plain.finals);
  RC_ASSERT(sleep.executions <= plain.executions);
}

// DPOR with source sets is not optimal in general, but it must keep every
// final state; the naive "add the racing actor" rule of classic DPOR loses
// some when combined with sleep sets, which this property finds quickly.
RC_GTEST_PROP(DfsStrategyProperty, DporReachesEveryFinalStateOfPlainDfs, ()) {
  const System system = *SmallSystems();
  const Exploration plain = Explore(system, Plain());
  const Exploration dpor = Explore(system, Dpor());
  RC_ASSERT(dpor.exhausted);
  RC_ASSERT(dpor.finals == plain.finals);
  RC_ASSERT(dpor.executions <= plain.executions);
}

// A split search by `workers` workers sharing one tree, interleaved on this
// thread an execution at a time: `turn(i)` picks who runs the i-th turn
// (workers with nothing to do until others publish wait their turn out).
// With `resume_every` > 0 the search stops after every that many
// executions: each worker suspends, the tree is saved, and new workers go on
// from the tree loaded from that text (what `check --checkpoint` and
// `--resume` do), two of them after three and three after two (unless
// `vary_workers` is false), so that suspended stacks outnumber the workers
// that go on with them.
template <typename Turn>
Exploration ExploreSplit(const System& system, std::size_t split, int workers,
                         DfsStrategy::Options options, Turn turn, std::uint64_t resume_every = 0,
                         bool vary_workers = true) {
  auto tree = std::make_shared<SplitTree>(/*wait_for_work=*/false);
  options.split_choices = split;
  std::vector<std::unique_ptr<DfsStrategy>> dfs;
  std::vector<bool> finished;
  auto start_workers = [&] {
    options.split_tree = tree;
    dfs.clear();
    for (int w = 0; w < workers; ++w) dfs.push_back(std::make_unique<DfsStrategy>(options));
    finished.assign(workers, false);
  };
  start_workers();
  Exploration e;
  // Every worker gets turns; a long run of turns in which nobody could move
  // means the workers wait for each other.
  int idle_in_a_row = 0;
  for (std::size_t i = 0; idle_in_a_row < 100 * workers; ++i) {
    if (std::count(finished.begin(), finished.end(), true) == workers) break;
    const int w = turn(i) % workers;
    if (finished[w]) {
      ++idle_in_a_row;
      continue;
    }
    if (!dfs[w]->NewExecution()) {
      finished[w] = dfs[w]->exhausted() || !dfs[w]->status().ok();
      ++idle_in_a_row;
      continue;
    }
    idle_in_a_row = 0;
    const toy::Outcome o = toy::Run(system, *dfs[w]);
    EXPECT_EQ(o.error, "");
    ++e.executions;
    e.finals.insert(o.FinalState());
    if (resume_every != 0 && e.executions % resume_every == 0) {
      for (const auto& worker : dfs) worker->Suspend();
      const std::string saved = tree->Save();
      tree = std::make_shared<SplitTree>(/*wait_for_work=*/false);
      const absl::Status loaded = tree->Load(saved);
      EXPECT_TRUE(loaded.ok()) << loaded << "\n" << saved;
      if (vary_workers && workers > 1) workers = workers == 2 ? 3 : 2;
      start_workers();
    }
  }
  e.exhausted = true;
  for (int w = 0; w < workers; ++w) {
    EXPECT_TRUE(dfs[w]->status().ok()) << dfs[w]->status();
    e.exhausted &= dfs[w]->exhausted();
  }
  return e;
}

Exploration ExploreSplit(const System& system, std::size_t split, int workers) {
  return ExploreSplit(system, split, workers, Dpor(), [](std::size_t i) { return i; });
}

// One worker claims every option at the top in the order the sequential
// search explores them, with the same sleep sets: the same search.
TEST(DfsStrategy, SplitSearchByOneWorkerIsTheSequentialSearch) {
  const System system = toy::Writers(3, 3, SameObject);
  const Exploration sequential = Explore(system, Dpor());
  for (std::size_t split : {1, 2, 4, 8}) {
    const Exploration one = ExploreSplit(system, split, 1);
    EXPECT_TRUE(one.exhausted);
    EXPECT_EQ(one.executions, sequential.executions) << "split " << split;
    EXPECT_EQ(one.finals, sequential.finals);
  }
}

TEST(DfsStrategy, SplitSearchSpreadsOverWorkersAndReducesTheTop) {
  const System system = toy::Writers(3, 3, SameObject);
  const Exploration sequential = Explore(system, Dpor());
  const Exploration three = ExploreSplit(system, 2, 3);
  EXPECT_TRUE(three.exhausted);
  EXPECT_EQ(three.finals, Explore(system, Plain()).finals);
  // Not every option at the top: about what one worker runs.
  EXPECT_LE(three.executions, sequential.executions + sequential.executions / 2);
}

// Whatever the workers' interleaving, together they reach every final state
// plain DFS reaches; one worker alone runs the sequential search.
RC_GTEST_PROP(DfsStrategyProperty, SplitDporReachesEveryFinalStateOfPlainDfs, ()) {
  const System system = *SmallSystems();
  const std::size_t split = *rc::gen::inRange<std::size_t>(1, 6);
  const int workers = *rc::gen::inRange(2, 5);
  const std::vector<int> turns = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 8));
  const Exploration plain = Explore(system, Plain());
  const Exploration sequential = Explore(system, Dpor());
  const Exploration alone = ExploreSplit(system, split, 1);
  const Exploration split_up =
      ExploreSplit(system, split, workers, Dpor(), [&turns](std::size_t i) {
        // Every other turn in order, so nobody starves; the rest as drawn.
        if (turns.empty() || i % 2 == 0) return static_cast<int>(i / 2);
        return turns[(i / 2) % turns.size()];
      });
  RC_ASSERT(alone.exhausted && split_up.exhausted);
  RC_ASSERT(alone.executions == sequential.executions);
  RC_ASSERT(split_up.finals == plain.finals);
}

// A split search stopped every few executions and resumed from its saved
// tree by new workers reaches every final state plain DFS reaches, and one
// worker's runs the sequential search's executions, no more: a suspended
// stack goes on where it stood.
RC_GTEST_PROP(DfsStrategyProperty, ResumedSplitDporReachesEveryFinalStateOfPlainDfs, ()) {
  const System system = *SmallSystems();
  const std::size_t split = *rc::gen::inRange<std::size_t>(1, 6);
  const int workers = *rc::gen::inRange(1, 4);
  const std::uint64_t every = *rc::gen::inRange<std::uint64_t>(1, 6);
  const std::vector<int> turns = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 8));
  const Exploration plain = Explore(system, Plain());
  const Exploration resumed = ExploreSplit(
      system, split, workers, Dpor(),
      [&turns](std::size_t i) {
        if (turns.empty() || i % 2 == 0) return static_cast<int>(i / 2);
        return turns[(i / 2) % turns.size()];
      },
      every);
  RC_ASSERT(resumed.exhausted);
  RC_ASSERT(resumed.finals == plain.finals);
  if (workers == 1) RC_ASSERT(resumed.executions == Explore(system, Dpor()).executions);
}

// A worker that resumes a suspended stack after exploring another claim keeps
// nothing of that claim's happens-before record: the stack's replay records
// every step again (a stale record once hid the race that schedules "T0
// reads 1 first" below a resumed claim, and lost a final state).
TEST(DfsStrategy, AResumedStackIsReplayedOnARecordOfItsOwn) {
  System system;
  system.threads.push_back({{Read(1), Write(2), Exit(8)}});
  system.threads.push_back({{Read(2), Write(1), Exit(8)}});
  const std::vector<int> turns = {0, 0, 0, 1};
  const Exploration resumed = ExploreSplit(
      system, 2, 2, Dpor(),
      [&turns](std::size_t i) {
        if (i % 2 == 0) return static_cast<int>(i / 2);
        return turns[(i / 2) % turns.size()];
      },
      /*resume_every=*/2, /*vary_workers=*/false);
  EXPECT_TRUE(resumed.exhausted);
  EXPECT_EQ(resumed.finals, Explore(system, Plain()).finals);
}

// Without reduction every option at the top is scheduled, each once.
RC_GTEST_PROP(DfsStrategyProperty, SplitPlainDfsRunsEachExecutionOnce, ()) {
  const System system = *SmallSystems();
  const std::size_t split = *rc::gen::inRange<std::size_t>(1, 6);
  const int workers = *rc::gen::inRange(1, 4);
  const Exploration plain = Explore(system, Plain());
  const Exploration split_up =
      ExploreSplit(system, split, workers, Plain(), [](std::size_t i) { return i; });
  RC_ASSERT(split_up.exhausted);
  RC_ASSERT(split_up.executions == plain.executions);
  RC_ASSERT(split_up.finals == plain.finals);
}

RC_GTEST_PROP(DfsStrategyProperty, BoundedSleepSetsCoverBoundedPlainDfs, ()) {
  const System system = *SmallSystems();
  const int bound = *rc::gen::inRange(0, 3);
  const Exploration plain = Explore(system, Plain(bound));
  const Exploration sleep = Explore(system, Sleep(bound));
  RC_ASSERT(sleep.exhausted);
  for (std::uint64_t final_state : plain.finals) {
    RC_ASSERT(sleep.finals.count(final_state) == 1u);
  }
  RC_ASSERT(sleep.executions <= plain.executions);
}

}  // namespace
}  // namespace stackcheck::sim
