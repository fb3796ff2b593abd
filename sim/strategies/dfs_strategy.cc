#include "sim/strategies/dfs_strategy.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::sim {
namespace {

bool SameFootprint(const Footprint& a, const Footprint& b) {
  if (a.count != b.count || a.program != b.program || a.held != b.held || a.breaks != b.breaks ||
      a.blocking != b.blocking || a.ends != b.ends || a.beside != b.beside) {
    return false;
  }
  for (int i = 0; i < a.count; ++i) {
    if (a.accesses[i].object != b.accesses[i].object ||
        a.accesses[i].write != b.accesses[i].write) {
      return false;
    }
  }
  return true;
}

bool SameCandidates(absl::Span<const Candidate> a, absl::Span<const Candidate> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].actor != b[i].actor || !SameFootprint(a[i].next, b[i].next)) {
      return false;
    }
  }
  return true;
}

}  // namespace

DfsStrategy::DfsStrategy(const Options& options)
    : options_(options), bound_(options.preemption_bound) {
  if (options_.iterative_bounding && options_.preemption_bound >= 0) bound_ = 0;
  dpor_ = options_.dpor && options_.sleep_sets && options_.preemption_bound < 0;
  // Under a bound, what a subtree's cuts say reaches the nodes above it
  // (the sleep rule), so units would not be independent.
  if (options_.preemption_bound >= 0) options_.split_choices = 0;
  if (options_.max_depth == 0) options_.max_depth = 1;
  // A sharded search shares nothing: no split tree.
  if (options_.shard_plan && options_.preemption_bound < 0 && !options_.split_tree) {
    shard_plan_ = options_.shard_plan;
  }
  if (options_.split_choices > 0 && !shard_plan_) {
    split_tree_ = options_.split_tree ? options_.split_tree
                                      : std::make_shared<SplitTree>(/*wait_for_work=*/false);
  }
}

void DfsStrategy::StartRound() {
  ++stats_.rounds;
  root_cut_ = false;
  stack_.clear();
}

bool DfsStrategy::NewExecution() {
  if (!status_.ok() || exhausted_ || suspended_) return false;
  if (idle_) {
    if (!TakeWork()) return false;
  } else if (started_) {
    if (!CloseExecution()) return false;
    if (options_.max_executions != 0 && stats_.executions >= options_.max_executions) {
      return false;
    }
    const bool advanced = Backtrack();
    // A sharded search's unit is finished once the search leaves it.
    if (in_unit_ && (!advanced || fresh_from_ < unit_node_)) {
      shard_plan_->Finished(unit_);
      in_unit_ = false;
    }
    if (!advanced && split_tree_) {
      if (root_cut_) split_tree_->NoteCut();
      if (!TakeWork()) return false;
    } else if (!advanced) {
      const bool another_round =
          options_.iterative_bounding && root_cut_ && bound_ < options_.preemption_bound;
      if (!another_round) {
        exhausted_ = true;
        if (shard_plan_) shard_plan_->WalkEnded();
        return false;
      }
      ++bound_;
      StartRound();
      fresh_from_ = 0;
    }
  } else {
    started_ = true;
    StartRound();
    fresh_from_ = 0;
    if (split_tree_ && !TakeWork()) return false;
    if (shard_plan_ && !shard_plan_->stack_before().empty()) {
      // An earlier run of this shard stopped here: its next execution.
      if (absl::Status s = RestoreShardStack(shard_plan_->stack_before()); !s.ok()) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat("the shard's progress does not fit this search: ", s.message()));
        return false;
      }
      restored_unproven_ = true;
    }
  }
  execution_open_ = true;
  ++stats_.executions;
  position_ = 0;
  have_actor_node_ = false;
  ended_at_rest_ = false;
  // The steps taken at nodes before the latest branching point are the
  // previous execution's: their happens-before record is kept, not redone.
  kept_steps_ = static_cast<std::size_t>(std::lower_bound(step_node_.begin(), step_node_.end(),
                                                          static_cast<std::uint32_t>(fresh_from_)) -
                                         step_node_.begin());
  happens_before_.Truncate(kept_steps_);
  step_node_.resize(kept_steps_);
  steps_taken_ = 0;
  pending_.clear();
  preemptions_ = 0;
  off_tree_ = false;
  choices_.clear();
  points_seen_ = 0;
  crossed_split_ = false;
  top_ = Top::kOpen;
  top_branchings_ = 0;
  return true;
}

bool DfsStrategy::CloseExecution() {
  execution_open_ = false;
  awaiting_backtrack_ = true;
  if (position_ != stack_.size()) {
    Diverged(
        absl::StrFormat("it ended after %d branching points where the previous run of the "
                        "same choices had %d",
                        position_, stack_.size()));
    return false;
  }
  // Actors whose pending step never ran: check it against the steps
  // taken since (at a sleep-blocked point this was done there).
  // An end at rest (kEndsAtRest) came when no other actor could move:
  // nothing was cut short, and it was the only step possible there.
  const bool cut_others = options_.last_step_global && !ended_at_rest_;
  if (dpor_ && !off_tree_) {
    if (cut_others) CheckLastStep();
    CheckPending();
  }
  // The step that ended the process (an exit after another exit, the
  // last step of the exit handlers, a violation) disables every other
  // actor, yet its footprint (e.g. a second `exit()`'s process W) may call
  // it independent of their steps. Asleep in a sibling's subtree it would
  // stay asleep across them, and "their steps, then it" would count as
  // equivalent to "it, then their steps", which never ran: the process
  // was over, so the executions where the others get a few steps further
  // before it were lost (dfs_strategy_test: AnExitCutsTheOtherThreadShort
  // AtEveryPoint). So the step that ended an execution counts as global
  // for sleep sets too, as it does for races: it never goes to sleep (a
  // global step would leave the sleep set at the next step anyway).
  // Whether a step ends the process depends only on what its footprint
  // covers (a second exit ends at once, and conflicts with the first), so
  // a step that did not end the execution where it was explored does not
  // end one in a sibling's subtree while it sleeps. With DPOR the last
  // node took the last step; without it (single-candidate points unseen)
  // a later unasked step may have been the last, and marking the last
  // node's option anyway only costs reduction.
  if (cut_others && !off_tree_ && have_actor_node_) {
    Node& last = stack_[last_actor_node_];
    last.flags[last.chosen] |= kMayEnd;
    last.dirty = true;
  }
  if (split_tree_) PublishTop();
  if (shard_plan_) CloseTop();
  restored_unproven_ = false;
  return true;
}

bool DfsStrategy::Backtrack() {
  awaiting_backtrack_ = false;
  // Backtrack: finish the deepest node's option and move to its next
  // eligible one, popping nodes that have none left.
  bool advanced = false;
  while (!stack_.empty()) {
    Node& node = stack_.back();
    if (node.top != nullptr) {
      // A top node of a split search: its options are the tree's.
      if (!node.claim_owned) break;  // the rest of the path is others' claims
      // Its whole subtree is explored: whether its step may end an
      // execution is known now whatever follows it.
      node.flags[node.chosen] |= SplitTree::kSettled;
      split_tree_->Publish(node.top, absl::MakeSpan(node.flags));
      split_tree_->Finish(node.top, node.chosen);
      node.claim_owned = false;
      std::uint32_t option = 0;
      SplitTree::Candidates done;
      if (split_tree_->ClaimNext(node.top, &option, &done)) {
        node.chosen = option;
        node.done.assign(done.begin(), done.end());
        node.claim_owned = true;
        node.dirty = true;  // to pull what others scheduled
        advanced = true;
        fresh_from_ = stack_.size() - 1;
        break;
      }
      if (node.cut_here || node.any_cut || node.child_cut) split_tree_->NoteCut();
      stack_.pop_back();
      continue;
    }
    if (node.chosen_private) {
      shard_plan_->EscapeExplored(PathTo(stack_.size() - 1), node.chosen);
    }
    // A finished option may sleep in its later siblings' subtrees if the
    // bound cut nothing below it, or if it was the current actor's step:
    // moving a current actor's independent step to the front of an
    // execution never adds a preemption (see the header), so its subtree
    // holds the equivalent of anything the sleep prunes.
    const bool current_option =
        node.current >= 0 && node.chosen == static_cast<std::uint32_t>(node.current);
    // (An option a sharded search explores privately never sleeps: the other
    // shards' sleep sets do not have it.)
    if (node.is_actor && options_.sleep_sets && !(node.flags[node.chosen] & kMayEnd) &&
        !node.chosen_private && (!node.child_cut || current_option)) {
      node.done.push_back(node.runnable[node.chosen]);
    }
    node.any_cut |= node.child_cut;
    node.child_cut = false;
    if (Advance(node)) {
      advanced = true;
      fresh_from_ = stack_.size() - 1;
      break;
    }
    const bool cut = node.cut_here || node.any_cut;
    stack_.pop_back();
    if (!stack_.empty()) {
      stack_.back().child_cut |= cut;
    } else {
      root_cut_ |= cut;
    }
  }
  return advanced;
}

void DfsStrategy::AtChoice() {
  if (options_.split_choices != 0 && choices_.size() == options_.split_choices) {
    crossed_split_ = true;
  }
}

void DfsStrategy::ScheduleFirst(Node& node) const {
  if (!node.is_actor || !dpor_) {
    node.flags.assign(node.options, kBacktrack);
  } else {
    // Start with the first awake option in exploration order; races found
    // later add the others.
    node.flags.assign(node.options, 0);
    for (std::uint32_t rank = 0; rank < node.options; ++rank) {
      const std::uint32_t option = OptionAt(node, rank);
      if (!Asleep(node, option)) {
        node.flags[option] |= kBacktrack;
        break;
      }
    }
  }
  // A sharded search's top node: the escapes an earlier run of this shard
  // met here.
  if (!node.shard_top) return;
  const std::map<std::uint32_t, bool>* known = shard_plan_->EscapesAt(PathTo(position_));
  if (known == nullptr) return;
  for (const auto& [option, explored] : *known) {
    if (option < node.options) node.flags[option] |= explored ? kEscaped | kTriedPrivate : kEscaped;
  }
}

bool DfsStrategy::ChooseFirst(Node& node) {
  if (split_tree_ && !crossed_split_) return ChooseFirstAtTop(node);
  ScheduleFirst(node);
  return Advance(node);
}

SearchState DfsStrategy::State(bool estimate) const {
  SearchState state;
  state.reduction = reduction();
  state.exhausted = exhausted_;
  if (estimate) state.explored_fraction = EstimatedFraction();
  state.depth = frontier_depth();
  state.bound = bound_;
  state.bound_cut = bound_cut();
  state.sleep_blocked = stats_.sleep_blocked;
  state.rounds = stats_.rounds;
  state.units = units();
  state.points_seen = points_seen_;
  state.status = status_;
  return state;
}

double DfsStrategy::EstimatedFraction() const {
  if (exhausted_) return 1;
  if (split_tree_) return split_tree_->FinishedShare();
  double fraction = 0;
  double weight = 1;
  for (const Node& node : stack_) {
    std::uint32_t scheduled = 0;
    std::uint32_t finished = 0;
    for (std::uint32_t k = 0; k < node.options; ++k) {
      const std::uint8_t flags = node.flags[k];
      if (!(flags & (kTried | kBacktrack))) continue;
      ++scheduled;
      if ((flags & kTried) && k != node.chosen) ++finished;
    }
    if (scheduled == 0) continue;
    fraction += weight * finished / scheduled;
    weight /= scheduled;
    if (weight < 1e-9) break;
  }
  return fraction;
}

std::uint32_t DfsStrategy::OptionAt(const Node& node, std::uint32_t rank) const {
  if (!node.is_actor || node.current < 0) return rank;
  const auto current = static_cast<std::uint32_t>(node.current);
  if (rank == 0) return current;
  return rank - 1 < current ? rank - 1 : rank;
}

bool DfsStrategy::Asleep(const Node& node, std::uint32_t index) const {
  const ActorId actor = node.runnable[index].actor;
  for (const Candidate& s : node.sleep) {
    if (s.actor == actor) return true;
  }
  return false;
}

bool DfsStrategy::Advance(Node& node) {
  node.chosen_private = false;
  for (std::uint32_t rank = 0; rank < node.options; ++rank) {
    const std::uint32_t option = OptionAt(node, rank);
    std::uint8_t& flags = node.flags[option];
    if (node.shard_top && (flags & kEscaped) && !(flags & kTriedPrivate)) {
      // Scheduled by a race this shard alone saw: explored here, privately,
      // unless a race every shard saw scheduled it since (its units are
      // explored then, by their owners) or it is asleep (a sibling's
      // subtree holds its equivalent).
      flags |= kTriedPrivate;
      if ((flags & kBacktrack) || Asleep(node, option)) {
        shard_plan_->EscapeExplored(PathTo(static_cast<std::size_t>(&node - stack_.data())),
                                    option);
      } else {
        node.chosen = option;
        node.chosen_private = true;
        return true;
      }
    }
    if (flags & kTried) continue;
    if (node.is_actor) {
      if (dpor_ && !(flags & kBacktrack)) continue;
      const bool preempts = node.current >= 0 && option != static_cast<std::uint32_t>(node.current);
      if (bound_ >= 0 && preempts &&
          node.preemptions_before + 1 > static_cast<std::uint32_t>(bound_)) {
        flags |= kTried;
        node.cut_here = true;
        ++stats_.bound_pruned;
        continue;
      }
      if (Asleep(node, option)) {
        flags |= kTried;
        ++stats_.sleep_pruned;
        continue;
      }
    }
    flags |= kTried;
    node.chosen = option;
    return true;
  }
  return false;
}

DfsStrategy::Candidates DfsStrategy::SleepFor(const Candidates& runnable) const {
  Candidates sleep;
  if (!options_.sleep_sets || !have_actor_node_) return sleep;
  const Node& parent = stack_[last_actor_node_];
  const Candidate& taken = parent.runnable[parent.chosen];
  auto carry = [&](const Candidate& s) {
    if (s.actor == taken.actor || Dependent(s.next, taken.next)) return;
    // Keep it only if the actor is still runnable with the same next step;
    // anything else means something it depends on happened.
    for (const Candidate& r : runnable) {
      if (r.actor == s.actor) {
        if (SameFootprint(r.next, s.next)) sleep.push_back(s);
        return;
      }
    }
  };
  for (const Candidate& s : parent.sleep) carry(s);
  for (const Candidate& s : parent.done) carry(s);
  return sleep;
}

std::uint64_t DfsStrategy::DefaultActor(const SchedulingPoint& point) {
  return point.current >= 0 ? static_cast<std::uint64_t>(point.current) : 0;
}

void DfsStrategy::MarkCutAbove() {
  if (!stack_.empty()) {
    stack_.back().child_cut = true;
  } else {
    root_cut_ = true;
  }
}

const char* DfsStrategy::reduction() const {
  if (dpor_) return "dpor + sleep sets";
  return options_.sleep_sets ? "sleep sets" : "none";
}

void DfsStrategy::Diverged(const std::string& what) {
  if (!status_.ok()) return;
  status_ = restored_unproven_
                ? absl::InvalidArgumentError(absl::StrFormat(
                      "a suspended stack (of a checkpoint or a proof part) does not replay "
                      "(%s): the file is damaged, or was written by another build",
                      what))
                : absl::InternalError(absl::StrFormat("execution %d is not deterministic: %s",
                                                      stats_.executions, what));
  off_tree_ = true;
}

std::size_t DfsStrategy::NextActor(const SchedulingPoint& point) {
  std::uint64_t answer = DefaultActor(point);
  if (shard_plan_ && top_ == Top::kOpen && !off_tree_) EnterUnit();
  const bool in_top = shard_plan_ && top_ == Top::kOpen && !off_tree_;
  if (point.runnable.empty()) {
    Diverged("a scheduling point with no runnable actor");
  } else if (off_tree_) {
    // Redundant or past the horizon: keep running whoever runs.
  } else if (position_ < stack_.size()) {
    Node& node = stack_[position_];
    if (!node.is_actor || !SameCandidates(node.runnable, point.runnable) ||
        node.current != point.current) {
      Diverged(
          absl::StrFormat("branching point %d differs from the previous run of the same "
                          "choices",
                          position_));
    } else {
      answer = node.chosen;
      if (node.chosen_private) top_ = Top::kPrivate;
      if (dpor_) NoteRunnable(point);
      RecordStep(node.runnable[node.chosen], position_);
      last_actor_node_ = position_;
      have_actor_node_ = true;
      ++position_;
    }
  } else if (stack_.size() >= options_.max_depth) {
    ++stats_.depth_cut;
    MarkCutAbove();
    off_tree_ = true;
  } else {
    Node node;
    node.is_actor = true;
    node.current = point.current;
    node.options = static_cast<std::uint32_t>(point.runnable.size());
    node.preemptions_before = preemptions_;
    node.runnable.assign(point.runnable.begin(), point.runnable.end());
    node.shard_top = in_top;
    node.sleep = SleepFor(node.runnable);
    if (dpor_) NoteRunnable(point);
    if (ChooseFirst(node)) {
      answer = node.chosen;
      if (node.chosen_private) top_ = Top::kPrivate;
      RecordStep(node.runnable[node.chosen], position_);
      stack_.push_back(std::move(node));
      last_actor_node_ = position_;
      have_actor_node_ = true;
      ++position_;
    } else {
      // Every option is asleep or over the bound: whatever follows is
      // equivalent to an explored execution (or excluded by the bound).
      ++stats_.sleep_blocked;
      if (in_top) top_ = Top::kBlocked;
      if (node.cut_here) MarkCutAbove();
      if (dpor_) CheckPending();
      off_tree_ = true;
    }
  }
  if (in_top && !off_tree_ && point.runnable.size() > 1) ++top_branchings_;
  if (point.current >= 0 && answer != static_cast<std::uint64_t>(point.current)) {
    ++preemptions_;
  }
  ++points_seen_;
  if (answer < point.runnable.size()) {
    ended_at_rest_ = (point.runnable[answer].next.ends & kEndsAtRest) != 0;
  }
  if (point.runnable.size() > 1) {
    choices_.push_back(answer);
    AtChoice();
  }
  stats_.max_depth_seen = std::max(stats_.max_depth_seen, choices_.size());
  return static_cast<std::size_t>(answer);
}

std::uint64_t DfsStrategy::NextNumber(std::uint64_t n) {
  std::uint64_t answer = 0;
  if (n == 0) {
    Diverged("a number choice among 0 options");
  } else if (n == 1 || off_tree_) {
    // A single option is no branching point and gets no node.
  } else if (position_ < stack_.size()) {
    const Node& node = stack_[position_];
    if (node.is_actor || node.options != n) {
      Diverged(
          absl::StrFormat("branching point %d differs from the previous run of the same "
                          "choices",
                          position_));
    } else {
      answer = node.chosen;
      ++position_;
    }
  } else if (stack_.size() >= options_.max_depth) {
    ++stats_.depth_cut;
    MarkCutAbove();
    off_tree_ = true;
  } else {
    Node node;
    // Wider data choices than this are not enumerable; explore the first
    // values and count the rest as cut, so the search is not "exhausted".
    constexpr std::uint64_t kMaxNumberOptions = 4096;
    node.options = static_cast<std::uint32_t>(std::min(n, kMaxNumberOptions));
    node.shard_top = shard_plan_ && top_ == Top::kOpen;
    node.cut_here = n > kMaxNumberOptions;
    if (ChooseFirst(node)) {
      answer = node.chosen;
      stack_.push_back(std::move(node));
      ++position_;
    } else {
      off_tree_ = true;
    }
  }
  if (shard_plan_ && top_ == Top::kOpen && !off_tree_ && n > 1) ++top_branchings_;
  choices_.push_back(answer);
  AtChoice();
  stats_.max_depth_seen = std::max(stats_.max_depth_seen, choices_.size());
  return answer;
}

}  // namespace stackcheck::sim
