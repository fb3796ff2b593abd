// Wraps any strategy and counts what it was asked and what it answered:
// executions, choices, preemptions, the longest execution.
#ifndef STACKCHECK_SIM_STRATEGIES_METRICS_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_METRICS_STRATEGY_H_

#include <cstdint>
#include <string>

#include "sim/strategy.h"

namespace stackcheck::sim {

struct StrategyMetrics {
  std::uint64_t executions = 0;
  std::uint64_t actor_choices = 0;  // scheduling points (steps)
  std::uint64_t number_choices = 0;
  std::uint64_t preemptions = 0;      // chose another while current runnable
  std::uint64_t max_choices = 0;      // most answers in one execution
  std::uint64_t max_preemptions = 0;  // most preemptions in one execution

  // "executions 12, steps 340 (28.3/execution), numbers 4, preemptions 9,
  //  max choices 31, max preemptions 2"
  std::string Summary() const;
};

class MetricsStrategy : public Strategy {
 public:
  // `inner` must outlive this wrapper.
  explicit MetricsStrategy(Strategy& inner) : inner_(inner) {}

  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;
  bool ObservesEveryStep() const override { return inner_.ObservesEveryStep(); }
  SearchState State(bool estimate) const override { return inner_.State(estimate); }
  absl::Status Finish() override { return inner_.Finish(); }
  void Suspend() override { inner_.Suspend(); }

  // The counts so far, the execution in progress included.
  StrategyMetrics metrics() const;

 private:
  Strategy& inner_;
  // Totals, and maxima over the executions before the one in progress: the
  // per-execution counts below join the maxima when it ends (or is read),
  // not at every step.
  StrategyMetrics metrics_;
  std::uint64_t choices_ = 0;      // in the execution in progress
  std::uint64_t preemptions_ = 0;  // in the execution in progress
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_METRICS_STRATEGY_H_
