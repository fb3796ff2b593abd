// The strategy registry: every scheduling strategy a run can name, one row
// each. A new strategy is its own file (a sim::Strategy) plus a row in
// registry.cc; `check --strategy`, the campaign's explorers and
// properties::Explore look strategies up here by name.
#ifndef STACKCHECK_SIM_STRATEGIES_REGISTRY_H_
#define STACKCHECK_SIM_STRATEGIES_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class ShardPlan;
class SplitTree;

// Everything a registered strategy may read; each reads only its own fields.
struct StrategyParams {
  std::uint64_t seed = 1;               // random, pct
  std::uint64_t max_executions = 0;     // 0: the strategy's own end (none for sampling)
  int preemption_bound = -1;            // dfs, plain-dfs; < 0: none
  bool iterative_bounding = false;      // dfs, plain-dfs: bounds 0, 1, ... up to the bound
  std::uint32_t depth = 3;              // pct: bug depth
  std::uint64_t step_estimate = 64;     // pct: steps per execution, before it learns
  std::vector<std::uint64_t> schedule;  // sequence, replay
  // dfs, plain-dfs without a bound: a split search's split and the top its
  // workers share (DfsStrategy::Options::split_choices).
  std::size_t split_choices = 0;
  std::shared_ptr<SplitTree> split_tree;
  // dfs, plain-dfs without a bound: a sharded search's plan, its top ending
  // after split_choices choices (DfsStrategy::Options::shard_plan).
  std::shared_ptr<ShardPlan> shard_plan;
};

struct StrategyRow {
  absl::string_view name;
  absl::string_view summary;  // one line, for --help and errors
  // Whether running out means every schedule was covered (up to
  // equivalence), so "exhausted" may be claimed.
  bool exhaustive;
  std::unique_ptr<Strategy> (*make)(const StrategyParams&);
};

absl::Span<const StrategyRow> Strategies();

// The row named `name`; InvalidArgument listing the known names otherwise.
absl::StatusOr<const StrategyRow*> FindStrategy(absl::string_view name);

// "dfs, plain-dfs, random, pct, sequence, replay"
std::string StrategyNames();

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_REGISTRY_H_
