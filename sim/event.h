// The simulator's event stream: one compact record per thing that happened.
//
// Events are appended by the engine (host and device model) and by the runtime
// observer; monitors consume them one at a time, the trace writers render them,
// and the digest of an execution is a hash over them (so two executions with
// the same scenario and schedule must produce identical lists).
#ifndef STACKCHECK_SIM_EVENT_H_
#define STACKCHECK_SIM_EVENT_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

// kSharedAccess's c for an atomic snapshot read without the guard
// (Shared::Snapshot): ordered by the search, never a data race.
inline constexpr std::uint32_t kSnapshotAccess = 2;
// kSharedAccess's c for a write made while its actor only passes under the
// guard (Mutex::ReadUnder, a section meant for reads): passes do not order
// each other, so the guard does not order this write.
inline constexpr std::uint32_t kWriteInPass = 3;

enum class EventKind : std::uint8_t {
  // --- actors ---
  kThreadStart,  // a: parent actor (or kNoActor)
  kThreadEnd,
  kCallbackStart,  // a: stream, b: callback id, x: status (CuResult)
  kCallbackEnd,    // a: stream, b: callback id
  kHostFnStart,    // a: stream, b: host-fn id
  kHostFnEnd,      // a: stream, b: host-fn id
  kHostFnDropped,  // a: stream, b: host-fn id (SEM-06)
  // --- host synchronisation ---
  kMutexCreate,       // a: mutex id
  kMutexLock,         // a: mutex id (acquired)
  kMutexBlock,        // a: mutex id, b: owner actor (started waiting)
  kMutexTryLockFail,  // a: mutex id
  kMutexUnlock,       // a: mutex id, b: owner actor before the unlock
  kMutexDestroy,      // a: mutex id, b: owner actor (kNoActor if free)
  kSleep,             // x: virtual ns
  kJoin,              // a: joined actor
  kProcessExit,       // x: status; the simulated process ends
  // --- driver calls (made by the acting thread) ---
  kDriverCall,       // a: DriverCall, x: result (CuResult); logged on return
  kDriverCallBlock,  // a: DriverCall (the call started waiting)
  // --- device memory ---
  kAlloc,        // x: ptr, y: bytes
  kFree,         // x: ptr, y: bytes
  kAllocFailed,  // y: bytes, x: CuResult
  // --- kernels (a: kernel id, b: stream) ---
  kKernelEnqueue,  // x: stacks base, y: stack bytes per warp, c: region tag,
                   // d: teams * warps (warp slots)
  kKernelStart,    // the GPU starts it: its warps now use their slots
  kKernelEnd,      // x: result (kSuccess or the trap code)
  kKernelDropped,  // queued work discarded after a sticky error
  kStickyError,    // x: CuResult; the context is poisoned from here on
  // --- events and stream-ordered memory ---
  kEventRecord,        // a: event id, b: stream
  kEventComplete,      // a: event id
  kAsyncFreeComplete,  // x: ptr, y: bytes
  kCtxDestroy,         // the context is gone; its blocks are invalid
  // --- what the runtime says about itself (core/observer.h) ---
  kRegionBegin,    // c: region id, x: the stacks bytes it needs while it runs
  kRegionEnd,      // c: region id
  kFatalReported,  // c: attributed region, x: CuResult, d: message key
  kCacheHeld,      // x: held bytes
  kProbe,          // a: probe id (see probes in properties/)
  // --- appended (digests of earlier kinds unchanged) ---
  kHostWordWrite,   // a: host word, b: stream, x: value (EXT-01)
  kKernelVars,      // a: kernel id, x: its variable table (KernelArgs::vars),
                    // y: the program allocation it uses (KernelArgs::data,
                    // 0: none); logged right after the kernel's kKernelEnqueue
  kMemcpy,          // x: device address, y: bytes, a: 1 = host to device
  kErrorReported,   // x: CuResult, d: message key (a non-fatal message)
  kSharedAccess,    // a: shared object (core/shared.h), b: 1 = write,
                    // c: 1 = its guard was held, kSnapshotAccess = an
                    // unguarded atomic snapshot, kWriteInPass = a write in a
                    // pass under the guard; not hashed into digests
  kProgramCall,     // a real program's thread call (sim/libcuda's threads):
                    // d: name key (SimView::MessageText), a: object
                    // (mutex, wait queue or thread), x: result
  kWaitQueueBlock,  // a: wait queue, b: the actor blamed (or kNoActor)
  kWaitQueueWake,   // a: wait queue, b: the actor woken
  kAllocGaveUp,     // x: bytes a device_alloc returned no memory for, y: bytes
                    // the stacks cache held then (RuntimeObserver::
                    // AllocationFailed); not hashed into digests
  kMutexPass,       // a: mutex id (locked and unlocked in one step: Mutex::ReadUnder)
  kMutexPassEnd,    // a: mutex id; after a pass whose read took shared state
                    // (its kSharedAccess events come between); not hashed
                    // into digests
  // x: status. An exit's handlers (those no earlier exit started) have run:
  // the process may end at any step from here on (it ends once no other
  // actor can move, SimHost::ExitProcess).
  kExitHandlersDone,
};

inline constexpr ActorId kNoActor = 0xffffffffu;

struct Event {
  std::uint64_t time_ns = 0;  // virtual clock
  ActorId actor = kNoActor;   // who acted (host thread, callback thread, GPU)
  EventKind kind = EventKind::kThreadStart;
  std::uint32_t a = 0, b = 0, c = 0, d = 0;
  std::uint64_t x = 0, y = 0;
};

// Whether `e` leaves every shared access ordered by its guard's critical
// sections: snapshots never race, and anything else not made under its
// guard's lock may; an unlock by someone other than the holder (field b)
// does not order the next lock after the holder's section. Other events
// order nothing away. (data-race builds no clocks when all events keep it.)
inline bool KeepsGuardOrder(const Event& e) {
  if (e.kind == EventKind::kSharedAccess) return e.c == 1 || e.c == kSnapshotAccess;
  if (e.kind == EventKind::kMutexUnlock) return e.b == e.actor;
  return true;
}

absl::string_view EventKindName(EventKind kind);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_EVENT_H_
