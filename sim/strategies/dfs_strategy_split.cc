// DfsStrategy's side of a split search (Options::split_tree;
// sim/strategies/split_tree.h): taking a claim from the shared top, opening
// and claiming top nodes, and publishing what an execution showed there.
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "sim/strategies/dfs_strategy.h"

namespace stackcheck::sim {

bool DfsStrategy::TakeWork() {
  idle_ = false;
  std::vector<SplitTree::Step> path;
  std::string suspended;
  switch (split_tree_->TakeWork(&path, &suspended)) {
    case SplitTree::Work::kClaimed:
      break;
    case SplitTree::Work::kResumed:
      // Another worker's stack, suspended by an earlier run: go on with it.
      forced_.clear();
      root_token_ = false;
      if (absl::Status s = RestoreStack(suspended); !s.ok()) {
        status_ = s;
        return false;
      }
      restored_unproven_ = true;
      return true;
    case SplitTree::Work::kWait:
      idle_ = true;
      return false;
    case SplitTree::Work::kDone:
      exhausted_ = true;
      return false;
    case SplitTree::Work::kCancelled:
      return false;
  }
  // Replay the claim's path from the root; nothing recorded carries over.
  stack_.clear();
  forced_ = std::move(path);
  root_token_ = forced_.empty();
  fresh_from_ = 0;
  return true;
}

void DfsStrategy::PublishTop() {
  if (root_token_) {
    // The execution met no node to open: the search is this one execution.
    root_token_ = false;
    split_tree_->Finish(/*node=*/nullptr, 0);  // the root's opening
  }
  for (std::size_t i = 0; i < stack_.size() && stack_[i].top != nullptr; ++i) {
    Node& node = stack_[i];
    // Whether the chosen step may end an execution is known from any one
    // execution through it, unless a number choice comes next (an end may
    // then depend on the number).
    if (!(node.flags[node.chosen] & SplitTree::kSettled) &&
        (i + 1 == stack_.size() || stack_[i + 1].is_actor)) {
      node.flags[node.chosen] |= SplitTree::kSettled;
      node.dirty = true;
    }
    if (node.dirty) {
      node.dirty = false;
      split_tree_->Publish(node.top, absl::MakeSpan(node.flags));
    }
  }
}

bool DfsStrategy::ChooseFirstAtTop(Node& node) {
  node.flags.assign(node.options, 0);
  if (position_ < forced_.size()) {
    // On the path to this worker's claim: the option its claimant took.
    const SplitTree::Step& step = forced_[position_];
    if (!split_tree_->SameShape(step.node, node.is_actor, node.options)) {
      Diverged(
          absl::StrFormat("branching point %d differs from the one another worker met", position_));
      return false;
    }
    node.top = step.node;
    node.chosen = step.option;
    node.claim_owned = position_ + 1 == forced_.size();
    const SplitTree::Candidates done = split_tree_->DoneAt(step.node, step.option);
    node.done.assign(done.begin(), done.end());
    node.dirty = true;  // to pull the tree's flags
    return true;
  }
  std::vector<std::uint32_t> order(node.options);
  std::vector<bool> asleep(node.options, false);
  for (std::uint32_t rank = 0; rank < node.options; ++rank) order[rank] = OptionAt(node, rank);
  if (node.is_actor) {
    for (std::uint32_t k = 0; k < node.options; ++k) asleep[k] = Asleep(node, k);
  }
  ScheduleFirst(node);
  SplitTree::Node* parent = position_ == 0 ? nullptr : stack_[position_ - 1].top;
  const std::uint32_t parent_option = position_ == 0 ? 0 : stack_[position_ - 1].chosen;
  std::uint32_t option = 0;
  SplitTree::Candidates done;
  node.top =
      split_tree_->Open(parent, parent_option, node.is_actor, node.runnable, std::move(order),
                        absl::MakeConstSpan(node.flags), asleep, &option, &done);
  if (root_token_) {
    root_token_ = false;
    split_tree_->Finish(/*node=*/nullptr, 0);  // the root's opening
  }
  if (node.top == nullptr) return false;
  node.chosen = option;
  node.claim_owned = true;
  node.done.assign(done.begin(), done.end());
  return true;
}

}  // namespace stackcheck::sim
