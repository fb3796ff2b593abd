#include "sim/strategies/sequence_strategy.h"

namespace stackcheck::sim {

SequenceStrategy::SequenceStrategy(absl::Span<const std::uint64_t> values)
    : values_(values.begin(), values.end()) {}

bool SequenceStrategy::NewExecution() {
  if (started_) return false;
  started_ = true;
  return true;
}

std::size_t SequenceStrategy::NextActor(const SchedulingPoint& point) {
  const std::uint64_t n = point.runnable.size();
  const std::uint64_t base = point.current >= 0 ? point.current : 0;
  std::uint64_t offset = 0;
  if (position_ < values_.size()) offset = values_[position_++] % n;
  const std::uint64_t chosen = (base + offset) % n;
  effective_.push_back(chosen);
  return static_cast<std::size_t>(chosen);
}

std::uint64_t SequenceStrategy::NextNumber(std::uint64_t n) {
  if (n == 0) n = 1;  // out of contract; answer 0 rather than divide by zero
  std::uint64_t chosen = 0;
  if (position_ < values_.size()) chosen = values_[position_++] % n;
  effective_.push_back(chosen);
  return chosen;
}

}  // namespace stackcheck::sim
