// The scheduling-strategy interface: three methods, like shuttle's scheduler.
//
// The simulator runs every actor (host threads, the driver's callback thread,
// the GPU's streams) inside one OS thread and stops at every scheduling point
// to ask the strategy which runnable actor moves next. A strategy sees each
// candidate's next operation as a footprint, so that partial-order reduction
// can tell independent steps apart. A schedule is the list of answers given;
// replaying that list reproduces the execution exactly.
#ifndef STACKCHECK_SIM_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGY_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sim/footprint.h"

namespace stackcheck::sim {

struct Candidate {
  ActorId actor = 0;
  Footprint next;  // what the actor's next step touches
};

struct SchedulingPoint {
  // Runnable actors, sorted by actor id; never empty.
  absl::Span<const Candidate> runnable;
  // Index into `runnable` of the actor that took the previous step, or -1 if
  // it is no longer runnable (blocked or finished). Choosing another index
  // while this is >= 0 is a preemption.
  int current = -1;
};

// What a search knows of itself, for its report and its progress
// (Strategy::State): read the same way whatever the strategy, through any
// wrapper.
struct SearchState {
  // Exhaustive strategies: the reduction ("dpor + sleep sets", "none").
  const char* reduction = "";
  bool exhausted = false;           // it has given every execution it had
  double explored_fraction = -1;    // State(true): an estimate; -1 none
  std::size_t depth = 0;            // its stack's depth
  int bound = -1;                   // the preemption bound in force; -1 none
  bool bound_cut = false;           // the bound left executions out
  std::uint64_t sleep_blocked = 0;  // executions sleep sets cut short
  std::uint64_t rounds = 0;         // iterative bounding's rounds
  std::uint64_t units = 0;          // a split search's claims
  // With ObservesEveryStep: the points asked about in this execution. An
  // execution of more steps than this + 1 skipped points the search needs.
  std::uint64_t points_seen = 0;
  absl::Status status;  // not OK: the search failed, and ends
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // Starts the next execution. Returns false when the strategy has nothing
  // left to explore (exhaustive search done, budget spent, replay consumed).
  virtual bool NewExecution() = 0;
  // Returns an index into point.runnable.
  virtual std::size_t NextActor(const SchedulingPoint& point) = 0;
  // Returns a number in [0, n), n >= 1: data choices such as which pending
  // callbacks run concurrently, or which allocation an injected fault hits.
  virtual std::uint64_t NextNumber(std::uint64_t n) = 0;
  // Whether the engine must also ask at points with a single runnable actor
  // (the answer is then always 0, and is not part of the schedule: replay
  // lists hold only answers at points with two or more candidates). Dynamic
  // partial-order reduction needs every step, since a step nobody was asked
  // about can still race with a later one; other strategies skip those
  // points for speed. An engine that ignores it makes DfsStrategy fall back
  // to sleep sets only (see DfsStrategy::points_seen()).
  virtual bool ObservesEveryStep() const { return false; }

  // --- the search's account of itself (defaults: a strategy with no state) ---
  // With `estimate`, explored_fraction too, which may walk its stack.
  virtual SearchState State(bool estimate) const {
    (void)estimate;
    return {};
  }
  // After the last execution: what only the end can tell (a recorded
  // schedule used up), and the search's final status.
  virtual absl::Status Finish() { return State(false).status; }
  // Stopped unfinished: leaves what a later run of the same search goes on
  // from (a split search's claims); no-op otherwise.
  virtual void Suspend() {}
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGY_H_
