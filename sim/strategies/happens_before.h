// Happens-before over the steps of one execution, by vector clocks, and the
// two queries source-set DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014)
// is built on: races, and the initials of a reversed race.
//
// Steps are ordered by program order within an actor and by Dependent()
// between actors (through per-object clocks: the last write, and the reads
// since it). A step s of actor p races with an earlier step i when they are
// dependent, i is another actor's, and i does not already happen before p's
// previous step; reversing such a pair can change the outcome.
#ifndef STACKCHECK_SIM_STRATEGIES_HAPPENS_BEFORE_H_
#define STACKCHECK_SIM_STRATEGIES_HAPPENS_BEFORE_H_

#include <cstdint>
#include <cstddef>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class HappensBefore {
 public:
  void Reset();

  // Appends a step; returns its index (0-based, in execution order).
  std::size_t Record(ActorId actor, const Footprint& step);

  // Calls visit(i) for every recorded step i racing with a step of `actor`
  // touching `step` taken next (not recorded), latest first, until visit
  // returns false.
  void ForEachRace(ActorId actor, const Footprint& step,
                   absl::FunctionRef<bool(std::size_t)> visit) const;

  // For a race between recorded step i and a step of `actor` touching `step`
  // taken next: v = the recorded steps after i that do not happen after i,
  // then that step. Returns the actors whose first step in v has no
  // predecessor in v: running any of them instead of step i starts an
  // execution that reverses the race.
  // With `end` < size(), only the recorded steps before `end` make up v (the
  // racing step is then recorded step `end`, taken as `step`).
  absl::InlinedVector<ActorId, 4> Initials(std::size_t i, ActorId actor,
                                           const Footprint& step,
                                           std::size_t end = SIZE_MAX) const;

  // Calls visit(i) for every recorded step i of another actor that the last
  // recorded step does not already happen after: the races the last step
  // would have if it had been global.
  void ForEachRaceOfLastAsGlobal(
      absl::FunctionRef<void(std::size_t)> visit) const;

  ActorId actor_of(std::size_t step) const { return steps_[step].actor; }

  std::size_t size() const { return steps_.size(); }

 private:
  // Clock[q] = 1 + index of q's latest step known to happen before; 0: none.
  using Clock = std::vector<std::uint32_t>;
  struct Step {
    ActorId actor;
    Footprint footprint;
    Clock clock;  // including itself
  };
  struct ObjectState {
    Clock last_write;
    Clock reads;  // join of the reads since the last write
    std::vector<std::uint32_t> steps;  // indices of the steps touching it
  };

  static void Join(Clock& into, const Clock& from);
  static bool Knows(const Clock& clock, ActorId actor, std::size_t step) {
    return actor < clock.size() && clock[actor] >= step + 1;
  }
  // The clock a step of `actor` touching `step` would get if taken now.
  Clock ClockOf(ActorId actor, const Footprint& step) const;
  bool HappensBeforeActor(std::size_t step, ActorId actor) const;
  bool Races(std::size_t step, ActorId actor, const Footprint& pending) const;

  std::vector<Step> steps_;
  std::vector<Clock> actor_clock_;
  absl::flat_hash_map<std::uint32_t, ObjectState> objects_;
  std::vector<std::uint32_t> global_steps_;  // steps touching kGlobalObject
  Clock global_clock_;  // clock of the latest global step
  Clock all_;           // join of every step's clock
  // The same for kDeviceWideObject, over the device's objects only.
  std::vector<std::uint32_t> device_wide_steps_;
  Clock device_wide_clock_;  // clock of the latest device-wide step
  Clock device_all_;         // join of the clocks of steps on device objects
  // The same for program-wide steps, over the steps that run program code
  // (Footprint::program).
  std::vector<std::uint32_t> program_wide_steps_;
  Clock program_wide_clock_;  // clock of the latest program-wide step
  Clock program_all_;         // join of the clocks of program steps
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_HAPPENS_BEFORE_H_
