// Replays a recorded schedule: the list of answers (actor indices and
// numbers, in the order they were given) of one earlier execution.
//
// Bad input never leads to undefined behaviour or a hang. The first choice
// that does not fit (a value out of range for its point, or the list running
// out) is recorded as an InvalidArgument status naming the choice's position;
// from then on the strategy answers 0, so the execution still runs to its end
// and the caller reports status() instead of a result.
//
// A list longer than the execution needed is an error too, not a warning: a
// faithful replay consumes exactly its list, so leftovers mean the schedule
// was recorded against a different scenario, policy or engine version, and
// the run just observed is not the one that was recorded. The check happens
// in Finish(), which NewExecution() also calls when asked for a second run.
#ifndef STACKCHECK_SIM_STRATEGIES_REPLAY_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_REPLAY_STRATEGY_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class ReplayStrategy : public Strategy {
 public:
  explicit ReplayStrategy(std::vector<std::uint64_t> choices);

  // True exactly once: a replay is one execution.
  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;

  // Call after the execution: adds the "list longer than used" check and
  // returns status().
  absl::Status Finish();
  // OK while every choice so far fitted.
  const absl::Status& status() const { return status_; }
  // How many choices of the list the execution consumed.
  std::size_t used() const { return position_; }

 private:
  // Returns the next recorded value if it is below n, else records the error
  // and returns 0. `what` describes the point for the message.
  std::uint64_t Take(std::uint64_t n, const char* what);

  std::vector<std::uint64_t> choices_;
  std::size_t position_ = 0;
  bool started_ = false;
  bool finished_ = false;
  absl::Status status_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_REPLAY_STRATEGY_H_
