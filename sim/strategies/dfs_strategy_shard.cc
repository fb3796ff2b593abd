// DfsStrategy's side of a sharded search (Options::shard_plan;
// sim/strategies/shard_plan.h): where the top ends and whose unit follows,
// what an execution outside this shard's units leaves behind, the settling
// of the unit in progress when the caller stops the search, and the stack a
// stopped shard leaves for its next run.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/number_line.h"

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
  if (shard_plan_ && status_.ok() && !started_) {
    // Stopped before its first execution: where it stood is where it was.
    shard_plan_->Suspended(shard_plan_->stack_before());
  }
  if (shard_plan_ && status_.ok()) {
    if (execution_open_) CloseExecution();
    if (awaiting_backtrack_ && status_.ok()) {
      const bool advanced = Backtrack();
      if (in_unit_ && (!advanced || fresh_from_ < unit_node_)) {
        shard_plan_->Finished(unit_);
        in_unit_ = false;
      }
      if (advanced) {
        // The next run of this shard goes on from here, not from the root.
        shard_plan_->Suspended(SaveShardStack());
      } else {
        shard_plan_->WalkEnded();
      }
      // The stack moved on: nothing runs after Finish.
      suspended_ = true;
    }
  }
  return State(false).status;
}

// The suspended stack (SaveStack), then after a ';' the shard's place in the
// walk and each node's shard flags:
//   NEXT_UNIT IN_UNIT UNIT UNIT_NODE, then per node: SHARD_TOP CHOSEN_PRIVATE
std::string DfsStrategy::SaveShardStack() const {
  std::string out = SaveStack();
  out += " ;";
  for (std::uint64_t v : {next_unit_, std::uint64_t{in_unit_}, unit_, std::uint64_t{unit_node_}}) {
    Put(&out, v);
  }
  for (const Node& node : stack_) {
    Put(&out, node.shard_top ? 1 : 0);
    Put(&out, node.chosen_private ? 1 : 0);
  }
  return out;
}

absl::Status DfsStrategy::RestoreShardStack(absl::string_view text) {
  const std::size_t split = text.find(';');
  if (split == absl::string_view::npos) {
    return absl::InvalidArgumentError("a suspended stack lacks the shard's place in the walk");
  }
  if (absl::Status s = RestoreStack(text.substr(0, split)); !s.ok()) return s;
  NumberLine in(text.substr(split + 1), "a suspended stack's walk");
  std::uint64_t next_unit = 0, unit = 0, unit_node = 0;
  bool in_unit = false;
  in.Read(UINT64_MAX, &next_unit);
  in.ReadBool(&in_unit);
  in.Read(UINT64_MAX, &unit);
  // (Out of a unit, its values are the last unit's, which nothing reads.)
  in.Read(UINT32_MAX, &unit_node);
  if (in.ok() && in_unit && (unit >= next_unit || !shard_plan_->Explores(unit))) {
    in.Fail(absl::StrFormat("is in unit %d, not one this shard explores of the %d numbered", unit,
                            next_unit));
  }
  if (in.ok() && in_unit && unit_node >= stack_.size()) {
    in.Fail(absl::StrFormat("begins its unit at node %d of %d", unit_node, stack_.size()));
  }
  if (in.ok() && in.Remaining() != 2 * stack_.size()) {
    in.Fail(
        absl::StrFormat("has shard flags for %d nodes of %d", in.Remaining() / 2, stack_.size()));
  }
  for (Node& node : stack_) {
    in.ReadBool(&node.shard_top);
    in.ReadBool(&node.chosen_private);
  }
  if (absl::Status s = in.Done(); !s.ok()) {
    stack_.clear();
    return s;
  }
  next_unit_ = next_unit;
  in_unit_ = in_unit;
  unit_ = unit;
  unit_node_ = static_cast<std::size_t>(unit_node);
  shard_plan_->Seen(next_unit_);
  return absl::OkStatus();
}

std::vector<std::uint32_t> DfsStrategy::PathTo(std::size_t node_index) const {
  std::vector<std::uint32_t> path(node_index);
  for (std::size_t i = 0; i < node_index; ++i) path[i] = stack_[i].chosen;
  return path;
}

}  // namespace stackcheck::sim
