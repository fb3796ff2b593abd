// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, ASPLOS 2010), with bug depth bound d.
//
// Every actor gets a random high priority when first seen; the highest
// priority runnable actor always runs. d-1 change points are drawn uniformly
// over the expected number of steps; when the step count reaches change point
// i, the actor about to run drops to priority d-i, below every initial one.
// For a program with n actors and k steps, a bug of depth d is hit with
// probability at least 1/(n * k^(d-1)) per execution.
//
// k is not known up front: it starts at Options::initial_step_estimate and
// becomes the largest step count seen in any earlier execution.
#ifndef STACKCHECK_SIM_STRATEGIES_PCT_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_PCT_STRATEGY_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "sim/strategies/rng.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class PctStrategy : public Strategy {
 public:
  struct Options {
    std::uint64_t seed = 0;
    std::uint32_t depth = 3;           // d >= 1; d = 1 means no change points
    std::uint64_t max_executions = 0;  // 0: no limit
    std::uint64_t initial_step_estimate = 64;
  };

  explicit PctStrategy(const Options& options);

  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;

  std::uint64_t step_estimate() const { return step_estimate_; }
  std::uint64_t executions_started() const { return started_; }
  // The change points of the execution in progress (1-based step numbers).
  absl::Span<const std::uint64_t> change_points() const { return change_points_; }

 private:
  std::uint64_t PriorityOf(ActorId actor);

  Options options_;
  Rng rng_;
  std::uint64_t started_ = 0;
  std::uint64_t step_estimate_;
  std::uint64_t steps_ = 0;                              // NextActor calls in this execution
  absl::InlinedVector<std::uint64_t, 4> change_points_;  // sorted
  std::size_t next_change_ = 0;
  // Indexed by actor id (ids are dense); 0 = not seen yet.
  std::vector<std::uint64_t> priority_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_PCT_STRATEGY_H_
