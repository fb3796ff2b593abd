// SequenceStrategy's values, read strictly: the form a replay file or token
// stores a schedule in, checked value by value.
//
// The mapping is SequenceStrategy's (an actor choice is an offset from the
// current actor, a number choice the number itself), but a value must be
// below the number of choices at its point: where SequenceStrategy would
// take it modulo that number, this strategy records an InvalidArgument
// status naming the step ("replay step N: ..."). The stored form omits
// trailing zeros, so once the values run out every answer is the default
// (0). Values left over when the execution ends are an error too (Finish()):
// the schedule was recorded for a different scenario, policy or version.
//
// After the first error every answer is 0, so the execution still runs to its
// end and the caller reports status() instead of a result. Shrinking, which
// rewrites schedules freely, uses the lenient SequenceStrategy.
#ifndef STACKCHECK_SIM_STRATEGIES_STRICT_SEQUENCE_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_STRICT_SEQUENCE_STRATEGY_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class StrictSequenceStrategy : public Strategy {
 public:
  explicit StrictSequenceStrategy(absl::Span<const std::uint64_t> values);

  // True exactly once; a second call runs Finish().
  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;

  // Call after the execution: adds the "values left over" check and returns
  // status().
  absl::Status Finish() override;
  SearchState State(bool estimate) const override;
  // OK while every value so far fitted.
  const absl::Status& status() const { return status_; }

 private:
  // The next value if it is below n (0 once the values ran out), else records
  // the error and returns 0. `what` describes the point for the message.
  std::uint64_t Take(std::uint64_t n, const char* what);

  std::vector<std::uint64_t> values_;
  std::size_t position_ = 0;  // values consumed
  std::size_t step_ = 0;      // choices answered
  bool started_ = false;
  bool finished_ = false;
  absl::Status status_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_STRICT_SEQUENCE_STRATEGY_H_
