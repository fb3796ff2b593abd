#include "properties/schedule_recorder.h"

namespace stackcheck::properties {

bool ScheduleRecorder::NewExecution() {
  values_.clear();
  return inner_.NewExecution();
}

std::size_t ScheduleRecorder::NextActor(const sim::SchedulingPoint& point) {
  const std::size_t chosen = inner_.NextActor(point);
  const std::size_t n = point.runnable.size();
  if (n < 2) return chosen;  // not a choice: SequenceStrategy is not asked there
  const std::size_t base = point.current >= 0 ? static_cast<std::size_t>(point.current) : 0;
  // (chosen - base) mod n without a division (a division per point cost
  // more than the rest of the recorder).
  std::size_t value = chosen + n - base;
  if (value >= n) value -= n;
  if (value >= n) value %= n;  // an out-of-range answer
  values_.push_back(value);
  return chosen;
}

std::uint64_t ScheduleRecorder::NextNumber(std::uint64_t n) {
  const std::uint64_t v = inner_.NextNumber(n);
  values_.push_back(v);
  return v;
}

std::vector<std::uint64_t> ScheduleRecorder::Schedule() const {
  std::size_t end = values_.size();
  while (end > 0 && values_[end - 1] == 0) --end;
  return std::vector<std::uint64_t>(values_.begin(), values_.begin() + end);
}

}  // namespace stackcheck::properties
