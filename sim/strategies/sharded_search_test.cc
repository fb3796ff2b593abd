// A search split into shards that share nothing (DfsStrategy with a
// ShardPlan): together the shards reach every final state plain DFS
// reaches, each unit is finished by exactly one shard, every shard numbers
// the same units, and a shard stopped anywhere goes on where it stood.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/shard_plan.h"
#include "sim/strategies/small_systems.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim {
namespace {

using toy::Read;
using toy::SmallSystems;
using toy::System;
using toy::Write;

struct ShardRun {
  std::set<std::uint64_t> finals;
  std::uint64_t executions = 0;
  bool exhausted = false;
  std::shared_ptr<ShardPlan> plan;
};

DfsStrategy::Options Options(bool reduce, std::size_t split, std::shared_ptr<ShardPlan> plan) {
  DfsStrategy::Options o;
  o.sleep_sets = reduce;
  o.dpor = reduce;
  o.split_choices = split;
  o.shard_plan = std::move(plan);
  return o;
}

// One shard's run, stopped after `budget` executions (0: none).
ShardRun RunShard(const System& system, bool reduce, std::size_t split,
                  std::shared_ptr<ShardPlan> plan, std::uint64_t budget = 0) {
  DfsStrategy::Options o = Options(reduce, split, plan);
  o.max_executions = budget;
  DfsStrategy dfs(o);
  ShardRun run;
  for (const toy::Outcome& o : toy::RunAll(system, dfs)) {
    EXPECT_EQ(o.error, "");
    run.finals.insert(o.FinalState());
    ++run.executions;
  }
  EXPECT_TRUE(dfs.Finish().ok()) << dfs.status();
  run.exhausted = dfs.exhausted();
  run.plan = std::move(plan);
  return run;
}

std::set<std::uint64_t> PlainFinals(const System& system) {
  DfsStrategy::Options o;
  o.sleep_sets = false;
  DfsStrategy dfs(o);
  std::set<std::uint64_t> finals;
  for (const toy::Outcome& o : toy::RunAll(system, dfs)) finals.insert(o.FinalState());
  return finals;
}

// The shards' runs, checked against each other: every one walked the whole
// top and numbered the same units, and each unit was finished by its owner.
std::set<std::uint64_t> RunAllShards(const System& system, bool reduce, std::size_t split,
                                     std::uint32_t count) {
  std::set<std::uint64_t> finals;
  std::vector<std::uint64_t> finished;
  std::uint64_t units = 0;
  for (std::uint32_t index = 0; index < count; ++index) {
    const ShardRun run =
        RunShard(system, reduce, split, std::make_shared<ShardPlan>(count, index, ShardProgress{}));
    RC_ASSERT(run.exhausted);
    RC_ASSERT(run.plan->walk_ended());
    if (index == 0) units = run.plan->units_seen();
    RC_ASSERT(run.plan->units_seen() == units);
    for (std::uint64_t unit : run.plan->progress().finished) {
      RC_ASSERT(unit % count == index);
      finished.push_back(unit);
    }
    finals.insert(run.finals.begin(), run.finals.end());
  }
  std::sort(finished.begin(), finished.end());
  std::vector<std::uint64_t> all(units);
  for (std::uint64_t u = 0; u < units; ++u) all[u] = u;
  RC_ASSERT(finished == all);
  return finals;
}

RC_GTEST_PROP(ShardedSearchProperty, ShardsTogetherReachEveryFinalStateOfPlainDfs, ()) {
  const System system = *SmallSystems();
  const std::size_t split = *rc::gen::inRange<std::size_t>(0, 7);
  const auto count = *rc::gen::inRange<std::uint32_t>(1, 5);
  const bool reduce = *rc::gen::arbitrary<bool>();
  RC_ASSERT(RunAllShards(system, reduce, split, count) == PlainFinals(system));
}

// A shard stopped after every few executions and run again with the units it
// finished goes on where it stood: the same units finished in the end, and
// every final state of its units reached. (A stop loses the unit in
// progress: a run too short to finish one makes no progress, and is given
// twice the budget next time.)
RC_GTEST_PROP(ShardedSearchProperty, AStoppedShardGoesOnWhereItStood, ()) {
  const System system = *SmallSystems();
  const std::size_t split = *rc::gen::inRange<std::size_t>(1, 7);
  const auto count = *rc::gen::inRange<std::uint32_t>(1, 4);
  const auto index = *rc::gen::inRange<std::uint32_t>(0, count);
  auto budget = *rc::gen::inRange<std::uint64_t>(1, 6);
  const ShardRun whole =
      RunShard(system, true, split, std::make_shared<ShardPlan>(count, index, ShardProgress{}));
  ShardProgress progress;
  std::set<std::uint64_t> finals;
  for (int run = 0; run < 1000; ++run) {
    const ShardRun part =
        RunShard(system, true, split, std::make_shared<ShardPlan>(count, index, progress), budget);
    if (part.plan->progress().finished == progress.finished) budget *= 2;
    progress = part.plan->progress();
    finals.insert(part.finals.begin(), part.finals.end());
    if (part.plan->walk_ended()) break;
  }
  RC_ASSERT(progress.finished == whole.plan->progress().finished);
  for (std::uint64_t f : whole.finals) RC_ASSERT(finals.count(f) == 1u);
}

// Three writers of one object: every order of the 3 x 3 writes is a trace
// of its own, so the top keeps every prefix, and the units are as many as
// the top's orders.
TEST(ShardedSearch, TheTopOfConflictingWritersKeepsEveryOrder) {
  const System system = toy::Writers(3, 3, [](int, int) -> std::uint32_t { return 1; });
  const ShardRun one =
      RunShard(system, true, 2, std::make_shared<ShardPlan>(1, 0, ShardProgress{}));
  EXPECT_TRUE(one.exhausted);
  EXPECT_EQ(one.plan->units_seen(), 9u);  // 3 x 3 orders of the first two writes
  EXPECT_EQ(one.plan->blocked_in_top(), 0u);
  EXPECT_EQ(one.finals, PlainFinals(system));
}

// Independent writers: one trace. The top is reduced by DPOR as the rest of
// the search is, so few orders of it are explored, and below each unit DPOR
// runs one execution (or none, when the sleep set the top hands it blocks
// every actor).
TEST(ShardedSearch, TheTopOfIndependentWritersIsReduced) {
  const System system =
      toy::Writers(3, 2, [](int thread, int) -> std::uint32_t { return thread + 1; });
  const ShardRun one =
      RunShard(system, true, 3, std::make_shared<ShardPlan>(1, 0, ShardProgress{}));
  EXPECT_TRUE(one.exhausted);
  EXPECT_EQ(one.finals.size(), 1u);
  // Plain DFS runs 6! / (2! 2! 2!) = 90 executions.
  EXPECT_LE(one.executions, 10u);
  EXPECT_LE(one.plan->units_seen(), one.executions);
}

}  // namespace
}  // namespace stackcheck::sim
