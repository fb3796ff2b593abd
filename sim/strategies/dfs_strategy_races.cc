// DfsStrategy's race analysis (DPOR, source sets; see dfs_strategy.h): the
// races of each new step, of the steps still pending at the end and of the
// last step taken as global, and the backtrack point each schedules - in a
// sharded search's top, every shard's or this shard's alone (an escape).
#include <cstdint>
#include <vector>

#include "sim/strategies/dfs_strategy.h"

namespace stackcheck::sim {

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

}  // namespace stackcheck::sim
