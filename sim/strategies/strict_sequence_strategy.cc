#include "sim/strategies/strict_sequence_strategy.h"

#include "absl/strings/str_format.h"

namespace stackcheck::sim {

StrictSequenceStrategy::StrictSequenceStrategy(absl::Span<const std::uint64_t> values)
    : values_(values.begin(), values.end()) {}

bool StrictSequenceStrategy::NewExecution() {
  if (started_) {
    Finish().IgnoreError();  // kept in status()
    return false;
  }
  started_ = true;
  return true;
}

std::uint64_t StrictSequenceStrategy::Take(std::uint64_t n, const char* what) {
  const std::size_t step = step_++;
  if (!status_.ok() || position_ >= values_.size()) return 0;
  const std::uint64_t value = values_[position_];
  if (n == 0 || value >= n) {
    status_ = absl::InvalidArgumentError(absl::StrFormat(
        "replay step %d: choice %d is out of range for a choice among %d %s (valid: 0..%d)", step,
        value, n, what, n == 0 ? 0 : n - 1));
    return 0;
  }
  ++position_;
  return value;
}

std::size_t StrictSequenceStrategy::NextActor(const SchedulingPoint& point) {
  const std::uint64_t n = point.runnable.size();
  const std::uint64_t base = point.current >= 0 ? point.current : 0;
  const std::uint64_t offset = Take(n, "runnable actors");
  return n == 0 ? 0 : static_cast<std::size_t>((base + offset) % n);
}

std::uint64_t StrictSequenceStrategy::NextNumber(std::uint64_t n) {
  if (n == 0) n = 1;  // out of contract; SequenceStrategy answers 0 there too
  return Take(n, "numbers");
}

absl::Status StrictSequenceStrategy::Finish() {
  if (!finished_ && status_.ok() && started_ && position_ < values_.size()) {
    status_ = absl::InvalidArgumentError(absl::StrFormat(
        "replay step %d: the execution ended after %d choices but the schedule has %d "
        "values; it was recorded for a different scenario, policy or version",
        step_, step_, values_.size()));
  }
  finished_ = true;
  return status_;
}

SearchState StrictSequenceStrategy::State(bool /*estimate*/) const {
  SearchState state;
  state.status = status_;
  return state;
}

}  // namespace stackcheck::sim
