#include "sim/strategies/replay_strategy.h"

#include <utility>

#include "absl/strings/str_format.h"

namespace stackcheck::sim {

ReplayStrategy::ReplayStrategy(std::vector<std::uint64_t> choices) : choices_(std::move(choices)) {}

bool ReplayStrategy::NewExecution() {
  if (started_) {
    Finish().IgnoreError();  // kept in status()
    return false;
  }
  started_ = true;
  return true;
}

std::uint64_t ReplayStrategy::Take(std::uint64_t n, const char* what) {
  if (!status_.ok()) return 0;
  if (position_ >= choices_.size()) {
    status_ = absl::InvalidArgumentError(
        absl::StrFormat("replay step %d: the schedule has only %d choices but the execution "
                        "needs more (next: a choice among %d %s)",
                        position_, choices_.size(), n, what));
    return 0;
  }
  const std::uint64_t value = choices_[position_];
  if (value >= n) {
    status_ = absl::InvalidArgumentError(
        absl::StrFormat("replay step %d: choice %d is out of range for a choice among %d %s "
                        "(valid: 0..%d)",
                        position_, value, n, what, n - 1));
    return 0;
  }
  ++position_;
  return value;
}

std::size_t ReplayStrategy::NextActor(const SchedulingPoint& point) {
  return static_cast<std::size_t>(Take(point.runnable.size(), "runnable actors"));
}

std::uint64_t ReplayStrategy::NextNumber(std::uint64_t n) { return Take(n, "numbers"); }

absl::Status ReplayStrategy::Finish() {
  if (!finished_ && status_.ok() && started_ && position_ < choices_.size()) {
    status_ = absl::InvalidArgumentError(
        absl::StrFormat("replay step %d: the execution ended but the schedule has %d choices; "
                        "it was recorded for a different scenario, policy or version",
                        position_, choices_.size()));
  }
  finished_ = true;
  return status_;
}

}  // namespace stackcheck::sim
