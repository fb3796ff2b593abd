// Uniform random scheduling: every runnable actor equally likely at every
// point, every number in [0, n) equally likely.
//
// Each execution k draws from its own stream, seeded from (seed, k), so a
// failing execution can be re-run on its own by constructing the strategy
// with the same seed and first_execution = k.
#ifndef STACKCHECK_SIM_STRATEGIES_RANDOM_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_RANDOM_STRATEGY_H_

#include <cstdint>

#include "sim/strategies/rng.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class RandomStrategy : public Strategy {
 public:
  struct Options {
    std::uint64_t seed = 0;
    // NewExecution() returns false once this many executions have started;
    // 0 means no limit.
    std::uint64_t max_executions = 0;
    // Index of the first execution (see the file comment).
    std::uint64_t first_execution = 0;
  };

  explicit RandomStrategy(const Options& options);

  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;

  // Index of the execution in progress (first_execution for the first one).
  std::uint64_t execution() const { return execution_; }
  std::uint64_t executions_started() const { return started_; }

 private:
  Options options_;
  std::uint64_t started_ = 0;
  std::uint64_t execution_ = 0;
  Rng rng_;
};

// The seed of execution `execution` of a strategy seeded with `seed`; shared
// with PCT so both derive per-execution streams the same way.
std::uint64_t ExecutionSeed(std::uint64_t seed, std::uint64_t execution);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_RANDOM_STRATEGY_H_
