#include "sim/strategies/registry.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/pct_strategy.h"
#include "sim/strategies/random_strategy.h"
#include "sim/strategies/sequence_strategy.h"
#include "sim/strategies/strict_sequence_strategy.h"

namespace stackcheck::sim {
namespace {

std::unique_ptr<Strategy> MakeDfs(const StrategyParams& p, bool reduce) {
  DfsStrategy::Options o;
  o.preemption_bound = p.preemption_bound;
  o.iterative_bounding = p.iterative_bounding;
  o.sleep_sets = reduce;
  o.dpor = reduce;
  o.max_executions = p.max_executions;
  o.split_choices = p.split_choices;
  o.split_tree = p.split_tree;
  o.shard_plan = p.shard_plan;
  return std::make_unique<DfsStrategy>(o);
}

constexpr StrategyRow kStrategies[] = {
    {"dfs", "exhaustive DFS with DPOR and sleep sets (sleep sets alone under a preemption bound)",
     true, [](const StrategyParams& p) { return MakeDfs(p, true); }},
    {"plain-dfs", "exhaustive DFS without reduction, for comparison", true,
     [](const StrategyParams& p) { return MakeDfs(p, false); }},
    {"random", "uniform random scheduling, seeded", false,
     [](const StrategyParams& p) -> std::unique_ptr<Strategy> {
       return std::make_unique<RandomStrategy>(
           RandomStrategy::Options{p.seed, p.max_executions, 0});
     }},
    {"pct", "PCT: random priorities with depth-1 change points, seeded", false,
     [](const StrategyParams& p) -> std::unique_ptr<Strategy> {
       PctStrategy::Options o;
       o.seed = p.seed;
       o.depth = p.depth;
       o.max_executions = p.max_executions;
       o.initial_step_estimate = p.step_estimate;
       return std::make_unique<PctStrategy>(o);
     }},
    {"sequence", "one execution from a schedule, values taken leniently (shrinking)", false,
     [](const StrategyParams& p) -> std::unique_ptr<Strategy> {
       return std::make_unique<SequenceStrategy>(p.schedule);
     }},
    {"replay", "one execution from a recorded schedule, every value checked", false,
     [](const StrategyParams& p) -> std::unique_ptr<Strategy> {
       return std::make_unique<StrictSequenceStrategy>(p.schedule);
     }},
};

}  // namespace

absl::Span<const StrategyRow> Strategies() { return kStrategies; }

std::string StrategyNames() {
  std::vector<absl::string_view> names;
  for (const StrategyRow& row : kStrategies) names.push_back(row.name);
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<const StrategyRow*> FindStrategy(absl::string_view name) {
  for (const StrategyRow& row : kStrategies) {
    if (row.name == name) return &row;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown strategy '", name, "' (known: ", StrategyNames(), ")"));
}

}  // namespace stackcheck::sim
