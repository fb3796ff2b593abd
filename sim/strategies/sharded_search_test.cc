// A search split into shards that share nothing (DfsStrategy with a
// ShardPlan): together the shards reach every final state plain DFS
// reaches, each unit is finished by exactly one shard, every shard numbers
// the same units, and a shard stopped anywhere goes on where it stood.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
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
  std::vector<std::uint64_t> finals_in_order;
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
    run.finals_in_order.push_back(o.FinalState());
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

// A shard stopped after every few executions and run again with its
// progress goes on from the execution after its last one, inside the unit
// it was in: its runs together are the uninterrupted run, execution for
// execution, with the same units finished and the same escapes.
RC_GTEST_PROP(ShardedSearchProperty, AStoppedShardGoesOnWhereItStood, ()) {
  const System system = *SmallSystems();
  const std::size_t split = *rc::gen::inRange<std::size_t>(1, 7);
  const auto count = *rc::gen::inRange<std::uint32_t>(1, 4);
  const auto index = *rc::gen::inRange<std::uint32_t>(0, count);
  const auto budget = *rc::gen::inRange<std::uint64_t>(1, 6);
  const ShardRun whole =
      RunShard(system, true, split, std::make_shared<ShardPlan>(count, index, ShardProgress{}));
  ShardProgress progress;
  std::vector<std::uint64_t> finals;
  bool ended = false;
  for (std::uint64_t run = 0; run <= whole.executions && !ended; ++run) {
    const ShardRun part =
        RunShard(system, true, split, std::make_shared<ShardPlan>(count, index, progress), budget);
    finals.insert(finals.end(), part.finals_in_order.begin(), part.finals_in_order.end());
    progress = part.plan->progress();
    ended = part.plan->walk_ended();
    RC_ASSERT(ended == progress.stack.empty());
  }
  RC_ASSERT(ended);
  RC_ASSERT(finals == whole.finals_in_order);
  const ShardProgress all = whole.plan->progress();
  RC_ASSERT(progress.finished == all.finished);
  RC_ASSERT(progress.escapes.size() == all.escapes.size());
  for (std::size_t i = 0; i < all.escapes.size(); ++i) {
    RC_ASSERT(progress.escapes[i].path == all.escapes[i].path);
    RC_ASSERT(progress.escapes[i].option == all.escapes[i].option);
    RC_ASSERT(progress.escapes[i].explored == all.escapes[i].explored);
  }
}

// A run stopped before its first execution leaves the stack it was given.
TEST(ShardedSearch, AStopBeforeTheFirstExecutionKeepsTheStack) {
  const System system = toy::Writers(3, 3, [](int, int) -> std::uint32_t { return 1; });
  const ShardRun first =
      RunShard(system, true, 2, std::make_shared<ShardPlan>(1, 0, ShardProgress{}), 1);
  const ShardProgress progress = first.plan->progress();
  ASSERT_FALSE(progress.stack.empty());
  DfsStrategy::Options o = Options(true, 2, std::make_shared<ShardPlan>(1, 0, progress));
  DfsStrategy dfs(o);
  EXPECT_TRUE(dfs.Finish().ok());
  EXPECT_EQ(o.shard_plan->progress().stack, progress.stack);
}

// A stack that does not fit the search is refused with the reason, before
// any execution runs.
TEST(ShardedSearch, AStackThatDoesNotFitIsRefused) {
  const System system = toy::Writers(3, 3, [](int, int) -> std::uint32_t { return 1; });
  const ShardRun first =
      RunShard(system, true, 2, std::make_shared<ShardPlan>(2, 0, ShardProgress{}), 1);
  ShardProgress progress = first.plan->progress();
  ASSERT_FALSE(progress.stack.empty());
  for (const std::string& damaged :
       {std::string(" 1 0"), progress.stack.substr(0, progress.stack.find(';')),
        progress.stack + " 1", std::string("x") + progress.stack}) {
    progress.stack = damaged;
    DfsStrategy dfs(Options(true, 2, std::make_shared<ShardPlan>(2, 0, progress)));
    EXPECT_FALSE(dfs.NewExecution()) << damaged;
    EXPECT_EQ(dfs.status().code(), absl::StatusCode::kInvalidArgument) << damaged;
  }
  // Another shard's stack names a unit that is not this shard's (unit 0,
  // whose subtree is more than its first execution).
  progress = first.plan->progress();
  DfsStrategy other(Options(true, 2, std::make_shared<ShardPlan>(2, 1, progress)));
  EXPECT_FALSE(other.NewExecution());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument);
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
