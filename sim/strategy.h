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

#include "absl/types/span.h"

namespace stackcheck::sim {

// Actors are numbered densely from 0 within one execution, in creation order
// (deterministic for a given scenario and schedule).
using ActorId = std::uint32_t;

// The shared object a step touches. Objects are encoded (kind << 24 | index)
// by the engine; kGlobalObject conflicts with everything. Objects with
// kDeviceBit set are the device's state; kDeviceWideObject (always written)
// conflicts with every one of them, and with nothing else: a step that
// changes the whole device (a trap poisoning the context) but no host state.
//
// Besides objects, a footprint says whether the step runs program code (the
// policy's and runtime's code between two scheduling points of a host or
// callback thread, whose state no object names: it is assumed guarded by
// simulated mutexes or owned by one thread), and whether it is program-wide:
// it changes that state unlocked (the exit handlers), so it conflicts with
// every step that runs program code, and with no GPU step.
struct Access {
  std::uint32_t object = 0;
  bool write = false;
};
inline constexpr std::uint32_t kGlobalObject = 0;
inline constexpr std::uint32_t kDeviceBit = 0x80000000u;
inline constexpr std::uint32_t kDeviceWideObject = kDeviceBit;
inline constexpr std::uint8_t kRunsProgram = 1;
inline constexpr std::uint8_t kProgramWide = 2;

// What an actor's next step touches: at most three objects (e.g. the memory
// ledger, and what is enqueued on and what has completed on a stream). Two
// steps are dependent when they touch a common object and one of them writes
// it; reordering independent steps cannot change the outcome, which is what
// sleep sets and DPOR exploit.
struct alignas(8) Footprint {
  Access accesses[3];
  std::uint8_t count = 0;
  std::uint8_t program = 0;  // kRunsProgram | kProgramWide

  static Footprint Global() { return Footprint{{{kGlobalObject, true}, {}}, 1}; }
  static Footprint DeviceWide() { return Footprint{{{kDeviceWideObject, true}, {}}, 1}; }
};

bool Dependent(const Footprint& a, const Footprint& b);

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
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGY_H_
