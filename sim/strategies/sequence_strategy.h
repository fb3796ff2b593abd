// Takes its choices from an external sequence of arbitrary uint64 values,
// such as a std::vector<uint64_t> generated (and shrunk) by RapidCheck, so
// that the property-test generator drives the schedule.
//
// Mapping, chosen so that shrinking the vector shrinks the schedule:
//  - an actor choice with the current actor still runnable picks
//    (current + value) mod n, so 0 means "no preemption" and any other value
//    is one preemption; with no current actor it picks value mod n;
//  - a number choice picks value mod n.
// Once the sequence runs out every answer is the default (keep the current
// actor, else the lowest index; number 0). So an empty vector gives the
// default, preemption-free schedule, and shrinking values toward zero, or the
// vector toward empty, removes preemptions.
//
// effective_choices() is the list of answers actually given (indices, not the
// raw values): hand it to ReplayStrategy to replay a counterexample.
#ifndef STACKCHECK_SIM_STRATEGIES_SEQUENCE_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_SEQUENCE_STRATEGY_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class SequenceStrategy : public Strategy {
 public:
  // The values are copied; the strategy runs one execution.
  explicit SequenceStrategy(absl::Span<const std::uint64_t> values);

  // True exactly once.
  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;

  const std::vector<std::uint64_t>& effective_choices() const { return effective_; }
  // How many values of the sequence were consumed.
  std::size_t consumed() const { return position_; }

 private:
  std::vector<std::uint64_t> values_;
  std::size_t position_ = 0;
  bool started_ = false;
  std::vector<std::uint64_t> effective_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_SEQUENCE_STRATEGY_H_
