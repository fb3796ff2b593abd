#include "sim/strategies/pct_strategy.h"

#include <algorithm>

#include "sim/strategies/random_strategy.h"

namespace stackcheck::sim {
namespace {
// Initial priorities live above this; lowered ones are 1..d-1, 0 = unseen.
constexpr std::uint64_t kInitialPriorityBase = std::uint64_t{1} << 62;
}  // namespace

PctStrategy::PctStrategy(const Options& options)
    : options_(options), step_estimate_(std::max<std::uint64_t>(1, options.initial_step_estimate)) {
  if (options_.depth == 0) options_.depth = 1;
}

bool PctStrategy::NewExecution() {
  step_estimate_ = std::max(step_estimate_, steps_);
  if (options_.max_executions != 0 && started_ >= options_.max_executions) {
    return false;
  }
  rng_.Seed(ExecutionSeed(options_.seed, started_));
  ++started_;
  steps_ = 0;
  priority_.clear();
  change_points_.clear();
  for (std::uint32_t i = 1; i < options_.depth; ++i) {
    change_points_.push_back(1 + rng_.Below(step_estimate_));
  }
  // Sorting loses which point was drawn i-th, which does not matter: the
  // points are i.i.d., and the priorities d-1, d-2, ... are handed out in
  // step order as in the paper.
  std::sort(change_points_.begin(), change_points_.end());
  next_change_ = 0;
  return true;
}

std::uint64_t PctStrategy::PriorityOf(ActorId actor) {
  if (actor >= priority_.size()) priority_.resize(actor + 1, 0);
  std::uint64_t& p = priority_[actor];
  // A random initial priority; a collision (probability ~2^-62) just breaks
  // ties by lower index below.
  if (p == 0) p = kInitialPriorityBase + (rng_.Next() >> 2);
  return p;
}

std::size_t PctStrategy::NextActor(const SchedulingPoint& point) {
  ++steps_;
  auto highest = [&] {
    std::size_t best = 0;
    std::uint64_t best_priority = 0;
    for (std::size_t i = 0; i < point.runnable.size(); ++i) {
      const std::uint64_t p = PriorityOf(point.runnable[i].actor);
      if (p > best_priority) {
        best = i;
        best_priority = p;
      }
    }
    return best;
  };
  std::size_t chosen = highest();
  // Several change points may fall on the same step; each demotes whoever
  // would run next.
  while (next_change_ < change_points_.size() && change_points_[next_change_] == steps_) {
    ++next_change_;
    priority_[point.runnable[chosen].actor] = options_.depth - next_change_;
    chosen = highest();
  }
  return chosen;
}

std::uint64_t PctStrategy::NextNumber(std::uint64_t n) { return n <= 1 ? 0 : rng_.Below(n); }

}  // namespace stackcheck::sim
