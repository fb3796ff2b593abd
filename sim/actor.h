// What the engine knows of an actor: its kind, its state, and why it waits.
// A blocked actor's WaitReason is what the scheduler re-checks before letting
// it move again, and what the wait-for graph of a deadlock report is built
// from.
#ifndef STACKCHECK_SIM_ACTOR_H_
#define STACKCHECK_SIM_ACTOR_H_

#include <cstdint>
#include <string>

#include "sim/driver_api.h"
#include "sim/event.h"

namespace stackcheck::sim {

enum class ActorKind : std::uint8_t {
  kHostThread,      // a thread of the simulated process (T0 is main)
  kCallbackThread,  // the driver's serial callback thread (SEM-07 default)
  kCallbackWorker,  // one callback in concurrent/unordered mode
  kGpuStream,       // the GPU's progress on one stream; no fiber
};

inline bool IsCallbackContext(ActorKind kind) {
  return kind == ActorKind::kCallbackThread || kind == ActorKind::kCallbackWorker;
}

enum class ActorState : std::uint8_t { kRunnable, kBlocked, kFinished };

// What a blocked actor waits for. The device kinds are judged by GpuModel.
enum class WaitKind : std::uint8_t {
  kNone,
  kMutex,                  // object: mutex id; until it has no owner
  kJoin,                   // object: actor id; until it finishes
  kCallbackWork,           // the idle serial callback thread: until a callback is dispatched
  kStreamIdle,             // object: stream index; until its queue is empty
  kAllStreamsIdle,         // until every stream of the context is idle
  kAllStreamsIdleOrFault,  // the same, or until a kernel poisons the context
  kEvent,                  // object: event record id; until that record completes
  kWakeup,                 // object: wait queue id; until a Wake picks this actor
  // Until no other actor can move (Scheduler::AwaitRest).
  kRest,
};

struct WaitReason {
  WaitKind kind = WaitKind::kNone;
  std::uint32_t object = 0;
  DriverCall call = DriverCall::kInit;  // the driver call that waits, if any
};

// One edge of the wait-for graph, for deadlock reports.
struct WaitEdge {
  ActorId to = kNoActor;
  std::string text;  // "T0 waits in cuMemFree for gpu:s0 to drain"
};

// Reserved: a fiber whose execution is over is unwound from its scheduling
// point by a forced unwind (the mechanism pthread_cancel uses), which runs
// destructors and `catch (...)` blocks (which must rethrow), but no typed
// handler. Simulated code must never swallow it.
struct ExecutionAbandoned {};

// Whether a scheduling point may unwind its fiber at teardown.
enum class PointKind : std::uint8_t {
  kMayUnwind,  // every point, except:
  kNoThrow,    // points reachable from destructors (Mutex::Unlock)
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_ACTOR_H_
