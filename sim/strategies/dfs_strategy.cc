#include "sim/strategies/dfs_strategy.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"

namespace stackcheck::sim {
namespace {

bool SameFootprint(const Footprint& a, const Footprint& b) {
  if (a.count != b.count || a.program != b.program || a.held != b.held || a.breaks != b.breaks ||
      a.blocking != b.blocking || a.ends != b.ends) {
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

void DfsStrategy::AddBacktrack(std::size_t step, ActorId actor, const Footprint& next,
                               std::size_t end) {
  Node& node = stack_[step_node_[step]];
  // Every option already scheduled: nothing to add, whatever the initials.
  bool all_scheduled = true;
  for (const std::uint8_t flags : node.flags) all_scheduled &= (flags & kBacktrack) != 0;
  if (all_scheduled) return;
  auto index_of = [&](ActorId a) -> int {
    for (std::size_t k = 0; k < node.runnable.size(); ++k) {
      if (node.runnable[k].actor == a) return static_cast<int>(k);
    }
    return -1;
  };
  const auto initials = happens_before_.Initials(step, actor, next, end);
  int runnable_initial = -1;
  for (ActorId q : initials) {
    const int k = index_of(q);
    if (k < 0) continue;
    if (node.flags[k] & kBacktrack) return;  // the reversal is scheduled
    if (node.shard_top && !SharedExecution() && (node.flags[k] & kEscaped)) return;
    if (runnable_initial < 0 ||
        (Asleep(node, runnable_initial) && !Asleep(node, static_cast<std::uint32_t>(k)))) {
      runnable_initial = k;
    }
  }
  node.dirty = true;  // for a split search's top node: to publish
  // A sharded search's top node takes what every shard sees; a race only
  // this shard saw schedules a private exploration.
  const bool escape = node.shard_top && !SharedExecution();
  auto schedule = [&](std::uint32_t option) {
    std::uint8_t& flags = node.flags[option];
    if (!escape) {
      flags |= kBacktrack;
    } else if (!(flags & (kEscaped | kBacktrack))) {
      flags |= kEscaped;
      shard_plan_->Escape(PathTo(step_node_[step]), option);
    }
  };
  if (runnable_initial >= 0) {
    schedule(static_cast<std::uint32_t>(runnable_initial));
    return;
  }
  // No initial was runnable there (the engine's blocking is finer than the
  // footprints say): fall back to trying everything at that point.
  for (std::uint32_t option = 0; option < node.options; ++option) schedule(option);
}

void DfsStrategy::CheckRaces(ActorId actor, const Footprint& next) {
  happens_before_.ForEachRace(actor, next, [&](std::size_t step) {
    AddBacktrack(step, actor, next);
    return true;  // every race, not only the latest: extra points are safe
  });
}

void DfsStrategy::CheckPending() {
  for (ActorId actor = 0; actor < pending_.size(); ++actor) {
    if (pending_[actor].valid) CheckRaces(actor, pending_[actor].next);
  }
}

void DfsStrategy::CheckLastStep() {
  const std::size_t n = happens_before_.size();
  if (n == 0) return;
  const std::size_t last = n - 1;
  const ActorId last_actor = happens_before_.actor_of(last);
  happens_before_.ForEachRaceOfLastAsGlobal(
      [&](std::size_t i) { AddBacktrack(i, last_actor, GlobalFootprint(), last); });
  // The actors it left runnable (those offered beside it that never ran).
  for (const Candidate& c : stack_[step_node_[last]].runnable) {
    if (c.actor != last_actor && c.actor < pending_.size() && pending_[c.actor].valid) {
      AddBacktrack(last, c.actor, c.next);
    }
  }
}

void DfsStrategy::NoteRunnable(const SchedulingPoint& point) {
  for (const Candidate& c : point.runnable) {
    if (c.actor >= pending_.size()) pending_.resize(c.actor + 1);
    pending_[c.actor] = {true, c.next};
  }
}

void DfsStrategy::RecordStep(const Candidate& taken, std::size_t node_index) {
  if (!dpor_) return;
  // Steps before the latest branching point are recorded already, and their
  // races were analysed in an earlier execution with the very same prefix.
  if (steps_taken_++ >= kept_steps_) {
    if (node_index >= fresh_from_) CheckRaces(taken.actor, taken.next);
    happens_before_.Record(taken.actor, taken.next);
    step_node_.push_back(static_cast<std::uint32_t>(node_index));
  }
  if (taken.actor < pending_.size()) pending_[taken.actor].valid = false;
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
                      "a suspended stack of the checkpoint does not replay (%s): the file is "
                      "damaged, or was written by another build",
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
