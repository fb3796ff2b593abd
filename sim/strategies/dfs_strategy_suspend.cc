// A split-search worker stopped where it stands and resumed by a worker of a
// later run (`check --checkpoint` / `--resume`): its stack goes to the tree
// as one line of numbers, ready for its next execution.
//
// What is kept is what the next execution needs and nothing it rebuilds: per
// node the options and their flags, the choice, the sleep and done sets, the
// cuts; the top nodes are found again in the tree by the path of choices from
// the root. The happens-before record is rebuilt by replaying the stack: the
// steps at nodes before the latest branching point (`fresh_from_`) are
// recorded without a race check, as when the worker goes on by itself,
// since their races were analysed in an earlier execution with the same
// prefix.
//
//   FRESH_FROM ROOT_CUT NODES, then per node:
//   IS_ACTOR CURRENT+1 OPTIONS CHOSEN PREEMPTIONS_BEFORE CUT_HERE CHILD_CUT
//   ANY_CUT IS_TOP CLAIM_OWNED FLAGS[OPTIONS] RUNNABLE SLEEP DONE
#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/number_line.h"

namespace stackcheck::sim {

void DfsStrategy::Suspend() {
  if (split_tree_ == nullptr || !status_.ok() || exhausted_ || suspended_) return;
  suspended_ = true;
  if (execution_open_ && !CloseExecution()) return;
  if (!awaiting_backtrack_) return;  // it went back to the tree for work
  if (!Backtrack()) {
    // Nothing left of its own: its claims are all finished.
    if (root_cut_) split_tree_->NoteCut();
    return;
  }
  std::uint64_t claims_held = 0;
  for (const Node& node : stack_) claims_held += node.claim_owned ? 1 : 0;
  split_tree_->Suspend(SaveStack(), claims_held);
  stack_.clear();
}

std::string DfsStrategy::SaveStack() const {
  std::string out;
  Put(&out, fresh_from_);
  Put(&out, root_cut_ ? 1 : 0);
  Put(&out, stack_.size());
  for (const Node& node : stack_) {
    for (std::uint64_t v :
         {std::uint64_t{node.is_actor}, static_cast<std::uint64_t>(node.current + 1),
          std::uint64_t{node.options}, std::uint64_t{node.chosen},
          std::uint64_t{node.preemptions_before}, std::uint64_t{node.cut_here},
          std::uint64_t{node.child_cut}, std::uint64_t{node.any_cut},
          std::uint64_t{node.top != nullptr}, std::uint64_t{node.claim_owned}}) {
      Put(&out, v);
    }
    for (std::uint8_t f : node.flags) Put(&out, f);
    PutCandidates(&out, node.runnable);
    PutCandidates(&out, node.sleep);
    PutCandidates(&out, node.done);
  }
  return out;
}

absl::Status DfsStrategy::RestoreStack(absl::string_view text) {
  // A wider node than any the engine makes is a damaged stack.
  constexpr std::uint64_t kMaxOptions = 1 << 16;
  NumberLine in(text, "a suspended stack");
  std::uint64_t fresh_from = 0, nodes = 0;
  bool root_cut = false;
  in.Read(UINT32_MAX, &fresh_from);
  in.ReadBool(&root_cut);
  in.Read(options_.max_depth, &nodes);
  if (in.ok() && nodes > 0 && fresh_from >= nodes) in.Fail("branches below its last node");
  std::vector<Node> stack;
  SplitTree::Node* parent = nullptr;
  for (std::uint64_t i = 0; in.ok() && i < nodes; ++i) {
    Node node;
    int current_plus_one = 0;
    bool is_top = false;
    in.ReadBool(&node.is_actor);
    in.ReadAs(kMaxOptions, &current_plus_one);
    if (in.ReadAs(kMaxOptions, &node.options) && node.options == 0)
      in.Fail("has a node without options");
    in.ReadAs(node.options == 0 ? 0 : node.options - 1, &node.chosen);
    in.ReadAs(UINT32_MAX, &node.preemptions_before);
    in.ReadBool(&node.cut_here);
    in.ReadBool(&node.child_cut);
    in.ReadBool(&node.any_cut);
    in.ReadBool(&is_top);
    in.ReadBool(&node.claim_owned);
    node.current = current_plus_one - 1;
    // Its flags take `options` fields, its three candidate lists one each.
    if (in.ok() && in.Remaining() < std::size_t{node.options} + 3) {
      in.Fail(absl::StrFormat("node %d has %d options but only %d fields for them", i, node.options,
                              in.Remaining()));
    }
    node.flags.resize(in.ok() ? node.options : 0);
    for (std::uint8_t& f : node.flags) in.ReadAs(255, &f);
    in.ReadCandidates(node.options, &node.runnable);
    in.ReadCandidates(node.options, &node.sleep);
    in.ReadCandidates(node.options, &node.done);
    if (!in.ok()) break;
    if (node.is_actor != (node.runnable.size() == node.options) ||
        (!node.is_actor && !node.runnable.empty())) {
      in.Fail(absl::StrFormat("node %d lacks its runnable actors", i));
    } else if (node.current > static_cast<int>(node.options) - 1 ||
               (!node.is_actor && node.current >= 0)) {
      in.Fail(absl::StrFormat("node %d has no such current actor", i));
    } else if (is_top) {
      // The top nodes are the first ones, a path from the tree's root.
      node.top = (i == 0 || stack.back().top != nullptr)
                     ? split_tree_->Child(parent, i == 0 ? 0 : stack.back().chosen)
                     : nullptr;
      if (node.top == nullptr || !split_tree_->SameShape(node.top, node.is_actor, node.options)) {
        in.Fail(absl::StrFormat("node %d is not the tree's node on its path", i));
      }
      parent = node.top;
      node.dirty = true;  // to pull the tree's flags
    } else if (node.claim_owned) {
      in.Fail(absl::StrFormat("node %d below the top holds a claim", i));
    }
    stack.push_back(std::move(node));
  }
  if (absl::Status s = in.Done(); !s.ok()) return s;
  stack_ = std::move(stack);
  // Nothing this worker recorded before belongs to the resumed stack: the
  // replay records every step again, checking races from fresh_from_ on.
  step_node_.clear();
  fresh_from_ = fresh_from;
  root_cut_ = root_cut;
  started_ = true;
  return absl::OkStatus();
}

}  // namespace stackcheck::sim
