// A toy transition system for testing strategies without the engine: a few
// threads, each a list of steps on shared objects, run by a loop that asks the
// strategy exactly as the simulator does: runnable candidates sorted by actor
// id, each with its next step's footprint, and the index of the actor that
// ran last; points with a single candidate are only asked about when the
// strategy's ObservesEveryStep() says so.
//
// The final state is commutativity-sensitive: writes fold an order-dependent
// hash into their object, reads fold the object's value into the reader's
// register. So two executions that order some pair of dependent steps
// differently almost surely end in different states, while reordering
// independent steps never changes it.
#ifndef STACKCHECK_SIM_STRATEGIES_TOY_SYSTEM_H_
#define STACKCHECK_SIM_STRATEGIES_TOY_SYSTEM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/strategy.h"

namespace stackcheck::sim::toy {

struct Step {
  enum class Kind : std::uint8_t {
    kRead,    // register ^= hash(objects[object])
    kWrite,   // objects[object] = hash(objects[object], thread, step)
    kLock,    // acquire mutex `object`; if held, this step only starts
              // waiting and the thread retakes it once the mutex is free
    kUnlock,  // release mutex `object`
    kChoose,  // objects[object] = hash(objects[object], NextNumber(n))
    kExit,    // objects[object] = hash(...) like a write, then the process
              // ends: no thread moves again (the engine's exit()). Its
              // footprint names only `object`, though it disables every
              // other thread, as the engine's does.
  };
  Kind kind = Kind::kWrite;
  std::uint32_t object = 1;  // >= 1 (0 is the global object)
  std::uint64_t n = 2;       // kChoose
};

Step Read(std::uint32_t object);
Step Write(std::uint32_t object);
Step Lock(std::uint32_t mutex);
Step Unlock(std::uint32_t mutex);
Step Choose(std::uint32_t object, std::uint64_t n);
Step Exit(std::uint32_t object);

struct Thread {
  std::vector<Step> steps;
};

struct System {
  std::vector<Thread> threads;
};

struct Outcome {
  std::vector<std::uint64_t> choices;    // the schedule: answers at points
                                         // with 2+ candidates, and numbers
  std::vector<ActorId> order;            // who took each step (a lock that
                                         // found its mutex held counts too)
  std::vector<std::uint64_t> objects;    // final object values
  std::vector<std::uint64_t> registers;  // final per-thread registers
  bool deadlock = false;
  std::string error;  // the strategy answered out of range

  // One value summarising the final state (objects and registers).
  std::uint64_t FinalState() const;
};

// Runs one execution; the caller has already called NewExecution().
Outcome Run(const System& system, Strategy& strategy);

// Runs executions until NewExecution() returns false or `limit` is reached.
std::vector<Outcome> RunAll(const System& system, Strategy& strategy, std::size_t limit = 1000000);

// A system of `threads` threads with `steps` writes each, all to `object`s
// chosen by `object_of(thread, step)`.
System Writers(int threads, int steps, std::uint32_t (*object_of)(int, int));

}  // namespace stackcheck::sim::toy

#endif  // STACKCHECK_SIM_STRATEGIES_TOY_SYSTEM_H_
