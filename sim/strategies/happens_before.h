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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "sim/strategy.h"
#include "sim/vector_clock.h"

namespace stackcheck::sim {

class HappensBefore {
 public:
  HappensBefore() { Reset(); }
  // Forgets every step (keeps the buffers).
  void Reset();

  // Appends a step; returns its index (0-based, in execution order).
  std::size_t Record(ActorId actor, const Footprint& step);

  // Forgets every step from index `steps` on, as if only the steps before
  // it had been recorded (a re-run that shares them need not record them
  // again).
  void Truncate(std::size_t steps);

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
  absl::InlinedVector<ActorId, 4> Initials(std::size_t i, ActorId actor, const Footprint& step,
                                           std::size_t end = SIZE_MAX) const;

  // Calls visit(i) for every recorded step i of another actor that the last
  // recorded step does not already happen after: the races the last step
  // would have if it had been global.
  void ForEachRaceOfLastAsGlobal(absl::FunctionRef<void(std::size_t)> visit) const;

  ActorId actor_of(std::size_t step) const { return steps_[step].actor; }

  std::size_t size() const { return steps_.size(); }

 private:
  // A clock has width_ entries: entry q = 1 + index of q's latest step known
  // to happen before; 0: none. Clocks live in arenas at a fixed stride (the
  // width grows, re-laying them out, when an actor beyond it appears), so
  // they are copied and joined at every step without allocating.
  using Entry = vector_clock::Entry;
  struct Step {
    ActorId actor;
    Footprint footprint;
  };
  struct ObjectState {
    std::uint32_t clocks = 0;          // index of its pair in object_clocks_
    std::vector<std::uint32_t> steps;  // indices of the steps touching it
    // ... and of those writing it: all a read can depend on through it.
    std::vector<std::uint32_t> writes;
  };
  // Special clocks, by index into special_.
  enum Special : int {
    kGlobalClock,               // the latest global step's
    kAll,                       // join of every step's
    kDeviceWideClock,           // the latest device-wide step's
    kDeviceAll,                 // join of the steps on device objects
    kProgramWideClock,          // the latest program-wide step's
    kProgramAll,                // join of the steps that run program code
    kHeldAll,                   // 8 clocks, by guard bit: join of the steps holding it
    kBrokenAll = kHeldAll + 8,  // 8 clocks: join of the steps breaking it
    kSpecialCount = kBrokenAll + 8,
  };
  static Special HeldAll(int bit) { return static_cast<Special>(kHeldAll + bit); }
  static Special BrokenAll(int bit) { return static_cast<Special>(kBrokenAll + bit); }

  Entry* StepClock(std::size_t step) { return &step_clocks_[step * width_]; }
  const Entry* StepClock(std::size_t step) const { return &step_clocks_[step * width_]; }
  // Null for an actor without steps (an all-zero clock).
  const Entry* ActorClock(ActorId actor) const {
    return actor < actors_ ? &actor_clocks_[actor * width_] : nullptr;
  }
  Entry* SpecialClock(Special c) { return &special_[c * width_]; }
  const Entry* SpecialClock(Special c) const { return &special_[c * width_]; }
  // An object's last-write clock, then its reads (the join of the reads
  // since that write).
  const Entry* LastWrite(const ObjectState& o) const { return &object_clocks_[o.clocks * width_]; }
  const Entry* Reads(const ObjectState& o) const {
    return &object_clocks_[(o.clocks + 1) * width_];
  }
  Entry* LastWrite(const ObjectState& o) { return &object_clocks_[o.clocks * width_]; }
  Entry* Reads(const ObjectState& o) { return &object_clocks_[(o.clocks + 1) * width_]; }

  // sim/vector_clock.h: the width is a multiple of 4.
  void Join(Entry* into, const Entry* from) const { vector_clock::Join(into, from, width_); }
  void Copy(Entry* into, const Entry* from) const { vector_clock::Copy(into, from, width_); }
  void Clear(Entry* clock) const { vector_clock::Clear(clock, width_); }
  bool Knows(const Entry* clock, ActorId actor, std::size_t step) const {
    return actor < width_ && clock[actor] >= step + 1;
  }
  // Makes room for actor ids below `actors` (widens every clock if needed).
  void Fit(ActorId actor);
  // The state of `object`, or null if no step touched it yet.
  const ObjectState* Find(std::uint32_t object) const {
    auto it = object_index_.find(object);
    return it == object_index_.end() ? nullptr : &objects_[it->second];
  }
  ObjectState& Touch(std::uint32_t object);
  // Writes into `clock` the clock a step of `actor` touching `step` would
  // get if taken now (Fit(actor) first).
  void ClockOf(ActorId actor, const Footprint& step, Entry* clock) const;
  // Undo log: what Record changed, so that Truncate can restore it.
  enum class UndoKind : std::uint8_t { kObjectClock, kSpecialClock, kActorClock, kNewObject };
  struct Undo {
    UndoKind kind;
    std::uint32_t index;  // clock (in its arena) or object id
    std::uint32_t saved;  // kNewObject: none; else its saved clock in undo_clocks_
  };
  // Saves a clock before Record changes it.
  void SaveObjectClock(std::uint32_t clock);
  void SaveSpecial(Special c);
  void SaveActorClock(ActorId actor);
  std::uint32_t SaveClock(const Entry* clock);

  bool HappensBeforeActor(std::size_t step, ActorId actor) const;
  bool Races(std::size_t step, ActorId actor, const Footprint& pending) const;
  // ForEachRace for a step that may race with any step not before it.
  void ForEachRaceAmongAll(ActorId actor, const Footprint& pending,
                           absl::FunctionRef<bool(std::size_t)> visit) const;
  // False if the race between recorded step `step` and `pending` (a step of
  // `actor`) cannot be reversed into an execution with a new outcome (see
  // Footprint::blocking in sim/footprint.h): a wait after the stream's
  // work, a lock attempt and the holder's unlock, or a kernel's start and
  // its launch.
  bool Reversible(std::size_t step, ActorId actor, const Footprint& pending) const;
  // Whether `holder` still held `mutex` when it took its step at index
  // `until` (size(): its pending step): only other actors' lock attempts
  // (which block on it) touched the mutex since that step was declared,
  // just after the holder's previous step; anything else may have released
  // it.
  bool HeldSince(std::uint32_t mutex, ActorId holder, std::size_t until) const;

  std::uint32_t width_ = 8;
  std::vector<Step> steps_;
  std::vector<Entry> step_clocks_;    // steps_.size() clocks
  std::uint32_t actors_ = 0;          // actor clocks held
  std::vector<Entry> actor_clocks_;   // by actor: its latest step's clock
  std::vector<Entry> special_;        // kSpecialCount clocks
  std::vector<Entry> object_clocks_;  // two per object in use
  // Object states by first touch; Reset keeps them (and their buffers) for
  // the next execution, which reuses the first ones it needs.
  absl::flat_hash_map<std::uint32_t, std::uint32_t> object_index_;
  std::vector<ObjectState> objects_;
  std::size_t objects_used_ = 0;
  // The steps `actor` can race with: other actors' steps that do not
  // happen before its next one, in increasing order (into `out`).
  void NotBefore(ActorId actor, std::vector<std::uint32_t>* out) const;

  std::vector<std::vector<std::uint32_t>> actor_steps_;  // by actor, in order
  std::vector<std::uint32_t> global_steps_;              // steps touching kGlobalObject
  std::vector<std::uint32_t> device_wide_steps_;         // ... kDeviceWideObject
  std::vector<std::uint32_t> program_wide_steps_;        // program-wide steps
  std::vector<std::uint32_t> breaking_steps_;            // steps breaking a guard bit
  std::vector<Undo> undo_;
  std::vector<Entry> undo_clocks_;        // saved clocks, width_ each
  std::vector<std::uint32_t> undo_mark_;  // by step: undo_.size() before it
  // Scratch clocks for ClockOf's callers (mutable: queries are const).
  mutable std::vector<Entry> scratch_;
  mutable std::vector<std::uint32_t> scratch_steps_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_HAPPENS_BEFORE_H_
