// Per-choice cost of the strategies, and DFS reduction on toy systems.
//
//   ./bazelw run -c opt //sim/strategies:strategy_benchmark
//
// The engine aims at 10M+ steps/s, so a strategy's answer must cost well
// under 100 ns. The *Answer benchmarks time NextActor() on a fixed point with
// 4 runnable actors; the Dfs* ones time whole explorations of a toy system
// (a stand-in for the engine, so they include its cost) and report the
// executions each mode needed.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/pct_strategy.h"
#include "sim/strategies/random_strategy.h"
#include "sim/strategies/sequence_strategy.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim {
namespace {

std::vector<Candidate> FourActors() {
  std::vector<Candidate> c;
  for (ActorId a = 0; a < 4; ++a) {
    Footprint f;
    f.count = 1;
    f.accesses[0] = {a + 1, true};
    c.push_back({a, f});
  }
  return c;
}

void AnswerLoop(benchmark::State& state, Strategy& strategy) {
  const std::vector<Candidate> candidates = FourActors();
  strategy.NewExecution();
  int current = 0;
  std::uint64_t steps = 0;
  for (auto _ : state) {
    const std::size_t chosen = strategy.NextActor(SchedulingPoint{candidates, current});
    benchmark::DoNotOptimize(chosen);
    current = static_cast<int>(chosen);
    // Keep executions realistic in length (PCT's change points, DFS's stack).
    if (++steps % 1000 == 0) strategy.NewExecution();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_RandomAnswer(benchmark::State& state) {
  RandomStrategy random({/*seed=*/1});
  AnswerLoop(state, random);
}
BENCHMARK(BM_RandomAnswer);

void BM_PctAnswer(benchmark::State& state) {
  PctStrategy::Options options;
  options.depth = 3;
  PctStrategy pct(options);
  AnswerLoop(state, pct);
}
BENCHMARK(BM_PctAnswer);

void BM_SequenceAnswer(benchmark::State& state) {
  std::vector<std::uint64_t> values(1 << 20);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i * 7919;
  for (auto _ : state) {
    state.PauseTiming();
    SequenceStrategy sequence(values);
    sequence.NewExecution();
    const std::vector<Candidate> candidates = FourActors();
    state.ResumeTiming();
    int current = 0;
    for (int i = 0; i < 1000; ++i) {
      current = static_cast<int>(sequence.NextActor(SchedulingPoint{candidates, current}));
    }
    benchmark::DoNotOptimize(current);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_SequenceAnswer);

std::uint32_t OwnObject(int thread, int step) {
  // Every third step touches the shared object 9; the rest are private.
  return step % 3 == 2 ? 9 : thread + 1;
}

void BM_DfsExplore(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));  // 0 plain, 1 sleep, 2 dpor
  const toy::System system = toy::Writers(3, 4, OwnObject);
  std::uint64_t executions = 0, blocked = 0, steps = 0;
  for (auto _ : state) {
    DfsStrategy::Options options;
    options.sleep_sets = mode >= 1;
    options.dpor = mode == 2;
    DfsStrategy dfs(options);
    while (dfs.NewExecution()) steps += toy::Run(system, dfs).order.size();
    executions = dfs.executions();
    blocked = dfs.stats().sleep_blocked;
  }
  state.counters["executions"] = static_cast<double>(executions);
  state.counters["sleep_blocked"] = static_cast<double>(blocked);
  state.SetItemsProcessed(static_cast<std::int64_t>(steps));
  state.SetLabel(mode == 0 ? "plain" : mode == 1 ? "sleep sets" : "dpor");
}
BENCHMARK(BM_DfsExplore)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stackcheck::sim

BENCHMARK_MAIN();
