// DfsStrategy's side of a sharded search (Options::shard_plan;
// sim/strategies/shard_plan.h): where the top ends and whose unit follows,
// what an execution outside this shard's units leaves behind, and the
// settling of the unit in progress when the caller stops the search.
#include <map>
#include <vector>

#include "absl/strings/str_format.h"
#include "sim/strategies/dfs_strategy.h"

namespace stackcheck::sim {

void DfsStrategy::EnterUnit() {
  if (top_branchings_ < options_.split_choices) return;
  if (in_unit_) {
    // Back into the unit in progress: the same prefix, so the same place.
    if (position_ != unit_node_) {
      Diverged(absl::StrFormat("unit %d began at branching point %d, and now at %d", unit_,
                               unit_node_, position_));
      return;
    }
    top_ = Top::kUnit;
    unit_first_execution_ = false;
    return;
  }
  const std::uint64_t unit = next_unit_++;
  shard_plan_->Seen(next_unit_);
  // Its first execution is every shard's (what it shows of the top is
  // shared); only its owner explores the rest.
  unit_node_ = position_;
  unit_first_execution_ = true;
  if (!shard_plan_->Explores(unit)) {
    top_ = Top::kWalk;
    return;
  }
  in_unit_ = true;
  unit_ = unit;
  top_ = Top::kUnit;
}

bool DfsStrategy::SharedExecution() const {
  switch (top_) {
    case Top::kOpen:
    case Top::kBlocked:
    case Top::kWalk:
      return true;
    case Top::kUnit:
      return unit_first_execution_;
    case Top::kPrivate:
      return false;
  }
  return false;
}

void DfsStrategy::CloseTop() {
  switch (top_) {
    case Top::kOpen: {
      // It ended within the top: a unit of one execution, which every shard
      // ran.
      const std::uint64_t unit = next_unit_++;
      shard_plan_->Seen(next_unit_);
      if (shard_plan_->Explores(unit)) {
        shard_plan_->Finished(unit);
      } else {
        shard_plan_->Walked(/*blocked=*/false);
      }
      break;
    }
    case Top::kBlocked:
      shard_plan_->Walked(/*blocked=*/true);
      break;
    case Top::kWalk:
      // Another shard's unit (or one finished before): its first execution
      // ran here too, for what it shows of the top; the rest is not ours.
      shard_plan_->Walked(/*blocked=*/false);
      stack_.resize(unit_node_);
      break;
    case Top::kUnit:
      break;
    case Top::kPrivate:
      shard_plan_->PrivateExecution();
      break;
  }
}

absl::Status DfsStrategy::Finish() {
  if (shard_plan_ && status_.ok()) {
    if (execution_open_) CloseExecution();
    if (awaiting_backtrack_ && status_.ok()) {
      const bool advanced = Backtrack();
      if (in_unit_ && (!advanced || fresh_from_ < unit_node_)) {
        shard_plan_->Finished(unit_);
        in_unit_ = false;
      }
      if (!advanced) shard_plan_->WalkEnded();
      // The stack moved on: nothing runs after Finish.
      suspended_ = true;
    }
  }
  return State(false).status;
}

std::vector<std::uint32_t> DfsStrategy::PathTo(std::size_t node_index) const {
  std::vector<std::uint32_t> path(node_index);
  for (std::size_t i = 0; i < node_index; ++i) path[i] = stack_[i].chosen;
  return path;
}

}  // namespace stackcheck::sim
