#include "sim/strategies/metrics_strategy.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace stackcheck::sim {

std::string StrategyMetrics::Summary() const {
  const double per_execution =
      executions == 0 ? 0.0 : static_cast<double>(actor_choices) / static_cast<double>(executions);
  return absl::StrFormat(
      "executions %d, steps %d (%.1f/execution), numbers %d, preemptions %d, "
      "max choices %d, max preemptions %d",
      executions, actor_choices, per_execution, number_choices, preemptions, max_choices,
      max_preemptions);
}

StrategyMetrics MetricsStrategy::metrics() const {
  StrategyMetrics m = metrics_;
  m.max_choices = std::max(m.max_choices, choices_);
  m.max_preemptions = std::max(m.max_preemptions, preemptions_);
  return m;
}

bool MetricsStrategy::NewExecution() {
  if (!inner_.NewExecution()) return false;
  metrics_ = metrics();
  ++metrics_.executions;
  choices_ = 0;
  preemptions_ = 0;
  return true;
}

std::size_t MetricsStrategy::NextActor(const SchedulingPoint& point) {
  const std::size_t chosen = inner_.NextActor(point);
  ++metrics_.actor_choices;
  if (point.current >= 0 && chosen != static_cast<std::size_t>(point.current)) {
    ++metrics_.preemptions;
    ++preemptions_;
  }
  ++choices_;
  return chosen;
}

std::uint64_t MetricsStrategy::NextNumber(std::uint64_t n) {
  const std::uint64_t chosen = inner_.NextNumber(n);
  ++metrics_.number_choices;
  ++choices_;
  return chosen;
}

}  // namespace stackcheck::sim
