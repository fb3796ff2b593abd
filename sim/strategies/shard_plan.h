// A proof split into shards that share nothing: every shard walks the same
// top of the search tree in the same order, numbers its units the same way,
// and explores only the units that fall to it (DfsStrategy::Options::
// shard_plan). The shards are separate processes, on one machine or on a
// remote-execution cluster; what each explored is merged afterwards
// (properties/proof_part.h).
//
// The top is reduced by DPOR like the rest of the search, from what every
// shard sees alike: the first execution of every unit. A race that only a
// unit's owner meets later (deeper in its unit) may call for another option
// at a top node; the owner explores that option's subtree itself, privately,
// outside the numbering (an "escape"), so that the split stays the same for
// every shard and no race goes unanswered. Two shards may meet the same
// escape and both explore it: that costs time, never soundness.
//
// The plan is the shard's side of that contract: which units are its own
// (unit mod count == index); what an earlier run of the same shard already
// did (its finished units are skipped, its escapes are known at once, and
// the search it stopped in the middle of goes on from the step it stood at),
// so a stopped shard goes on where it stood; and what this run did. The
// strategy writes it as it goes; the caller reads it when the run ends.
#ifndef STACKCHECK_SIM_STRATEGIES_SHARD_PLAN_H_
#define STACKCHECK_SIM_STRATEGIES_SHARD_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace stackcheck::sim {

// What a shard has done so far, carried from one run of it to the next.
struct ShardProgress {
  std::vector<std::uint64_t> finished;  // its units, ascending
  struct Escape {
    // The top node: the options chosen at every node before it, from the
    // root (single-option nodes included).
    std::vector<std::uint32_t> path;
    std::uint32_t option = 0;
    bool explored = false;  // its subtree is done
  };
  std::vector<Escape> escapes;
  // Where the search stood when the run stopped: the strategy's suspended
  // stack and its place in the walk of the top (DfsStrategy's text, read
  // back only by the same build). Empty when the walk ended, or when the
  // stop left no stack (the next run then walks the top again, and the unit
  // it was in starts over).
  std::string stack;
};

class ShardPlan {
 public:
  ShardPlan(std::uint32_t count, std::uint32_t index, const ShardProgress& before);

  std::uint32_t count() const { return count_; }
  std::uint32_t index() const { return index_; }
  bool Owns(std::uint64_t unit) const { return unit % count_ == index_; }
  // Whether this run explores `unit`: its own, and not finished before.
  bool Explores(std::uint64_t unit) const;

  // --- written by the strategy ---
  void Finished(std::uint64_t unit);
  // Units numbered so far (every shard's), and whether the walk of the top
  // reached its end: then `units_seen` is the number of units in all.
  void Seen(std::uint64_t units) { units_seen_ = units; }
  void WalkEnded() { walk_ended_ = true; }
  // An execution outside this shard's units: the first execution of
  // another's unit (or of one finished before), or one the top's sleep sets
  // found redundant.
  void Walked(bool blocked) {
    ++walk_executions_;
    if (blocked) ++blocked_in_top_;
  }
  // An option at the top node `path` that a race only this shard met calls
  // for (EscapesAt knows it from then on), and its subtree explored.
  void Escape(const std::vector<std::uint32_t>& path, std::uint32_t option);
  void EscapeExplored(const std::vector<std::uint32_t>& path, std::uint32_t option);
  void PrivateExecution() { ++private_executions_; }
  // The search stopped where `stack` says (ShardProgress::stack).
  void Suspended(std::string stack) { stack_ = std::move(stack); }
  // The stack an earlier run stopped at, to go on from ("" if none).
  const std::string& stack_before() const { return stack_before_; }
  // The escapes known at the top node `path`: (option, explored).
  const std::map<std::uint32_t, bool>* EscapesAt(const std::vector<std::uint32_t>& path) const;

  // --- read by the caller ---
  // Earlier runs' included.
  ShardProgress progress() const;
  std::uint64_t units_seen() const { return units_seen_; }
  bool walk_ended() const { return walk_ended_; }
  std::uint64_t walk_executions() const { return walk_executions_; }
  std::uint64_t blocked_in_top() const { return blocked_in_top_; }
  std::uint64_t escapes() const;  // known, earlier runs' included
  std::uint64_t private_executions() const { return private_executions_; }

 private:
  std::uint32_t count_;
  std::uint32_t index_;
  std::vector<std::uint64_t> finished_;
  std::map<std::vector<std::uint32_t>, std::map<std::uint32_t, bool>> escapes_;
  std::string stack_before_;
  std::string stack_;
  std::uint64_t units_seen_ = 0;
  bool walk_ended_ = false;
  std::uint64_t walk_executions_ = 0;
  std::uint64_t blocked_in_top_ = 0;
  std::uint64_t private_executions_ = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_SHARD_PLAN_H_
