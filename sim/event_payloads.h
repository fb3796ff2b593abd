// What each event kind carries, as a type: the one place that says which of an
// event's words hold which value.
//
// An event is a kind and six words (EventWords). Every payload below is a
// plain struct for one family of kinds that share a layout; it reads itself
// from the words (`Read`) and writes itself into them (`Write`), and says
// which kinds carry it (`Carries`). Readers ask the event for its payload:
//
//   const auto lock = e.As<payload::Mutex>();   // e.kind is a mutex kind
//   Join(clock, mutexes_.Row(lock.mutex, width_));
//
// and writers log one (Scheduler::Log(EventKind::kMutexLock,
// payload::Mutex{id})). Asking an event for a payload its kind does not carry
// is a programming error, stopped by an assert in every build but the release
// one. Everything here is inline and copies a few words: readers and writers
// compile to the same loads and stores the bare words did.
//
// The layouts are frozen: the trace digest hashes the words (sim/trace/
// digest.h) and replay files record digests, so a payload keeps the word it
// was given. A value a payload does not set stays 0.
#ifndef STACKCHECK_SIM_EVENT_PAYLOADS_H_
#define STACKCHECK_SIM_EVENT_PAYLOADS_H_

#include <cstdint>

#include "core/cu_result.h"
#include "core/driver_call.h"
#include "sim/event.h"

namespace stackcheck::sim::payload {

namespace internal {

inline CuResult ResultOf(std::uint64_t word) {
  return static_cast<CuResult>(static_cast<int>(word));
}
inline std::uint64_t WordOf(CuResult result) { return static_cast<std::uint64_t>(result); }

}  // namespace internal

// kThreadEnd and kCtxDestroy carry nothing.
struct None {
  static bool Carries(EventKind k) {
    return k == EventKind::kThreadEnd || k == EventKind::kCtxDestroy;
  }
  static None Read(const EventWords&) { return {}; }
  void Write(EventWords&) const {}
};

// --- actors ---

// kThreadStart: the actor that started the thread (kNoActor for the first).
struct ThreadStart {
  ActorId parent = kNoActor;

  static bool Carries(EventKind k) { return k == EventKind::kThreadStart; }
  static ThreadStart Read(const EventWords& w) { return {w.a}; }
  void Write(EventWords& w) const { w.a = parent; }
};

// Work a stream runs on the host: a callback (kCallbackStart, kCallbackEnd)
// or a host function (kHostFnStart, kHostFnEnd, kHostFnDropped).
struct StreamWork {
  std::uint32_t stream = 0;
  std::uint32_t id = 0;                  // the callback's or host function's
  CuResult status = CuResult::kSuccess;  // kCallbackStart: what the callback is told

  static bool Carries(EventKind k) {
    return k == EventKind::kCallbackStart || k == EventKind::kCallbackEnd ||
           k == EventKind::kHostFnStart || k == EventKind::kHostFnEnd ||
           k == EventKind::kHostFnDropped;
  }
  static StreamWork Read(const EventWords& w) { return {w.a, w.b, internal::ResultOf(w.x)}; }
  void Write(EventWords& w) const {
    w.a = stream;
    w.b = id;
    w.x = internal::WordOf(status);
  }
};

// --- host synchronisation ---

// What every mutex event names: kMutexCreate, kMutexLock (acquired),
// kMutexTryLockFail, kMutexPass (locked and unlocked in one step),
// kMutexPassEnd, and the three of MutexHeld.
struct Mutex {
  std::uint32_t mutex = 0;

  static bool Carries(EventKind k) {
    switch (k) {
      case EventKind::kMutexCreate:
      case EventKind::kMutexLock:
      case EventKind::kMutexTryLockFail:
      case EventKind::kMutexPass:
      case EventKind::kMutexPassEnd:
      case EventKind::kMutexBlock:
      case EventKind::kMutexUnlock:
      case EventKind::kMutexDestroy:
        return true;
      default:
        return false;
    }
  }
  static Mutex Read(const EventWords& w) { return {w.a}; }
  void Write(EventWords& w) const { w.a = mutex; }
};

// kMutexBlock (started waiting), kMutexUnlock and kMutexDestroy, with the
// actor that held the mutex then (kNoActor if free). An unlock whose owner is
// not its actor releases another's lock.
struct MutexHeld {
  std::uint32_t mutex = 0;
  ActorId owner = kNoActor;

  static bool Carries(EventKind k) {
    return k == EventKind::kMutexBlock || k == EventKind::kMutexUnlock ||
           k == EventKind::kMutexDestroy;
  }
  static MutexHeld Read(const EventWords& w) { return {w.a, w.b}; }
  void Write(EventWords& w) const {
    w.a = mutex;
    w.b = owner;
  }
};

// kSleep: for how long, in virtual nanoseconds.
struct Sleep {
  std::uint64_t ns = 0;

  static bool Carries(EventKind k) { return k == EventKind::kSleep; }
  static Sleep Read(const EventWords& w) { return {w.x}; }
  void Write(EventWords& w) const { w.x = ns; }
};

// kJoin: the actor joined.
struct Join {
  ActorId joined = kNoActor;

  static bool Carries(EventKind k) { return k == EventKind::kJoin; }
  static Join Read(const EventWords& w) { return {w.a}; }
  void Write(EventWords& w) const { w.a = joined; }
};

// kProcessExit (the simulated process ends) and kExitHandlersDone (an exit's
// handlers have run), with the exit status.
struct ExitStatus {
  int status = 0;

  static bool Carries(EventKind k) {
    return k == EventKind::kProcessExit || k == EventKind::kExitHandlersDone;
  }
  static ExitStatus Read(const EventWords& w) { return {static_cast<int>(w.x)}; }
  void Write(EventWords& w) const { w.x = static_cast<std::uint64_t>(status); }
};

// kProcessKilled: the signal the process died of.
struct Killed {
  int signal = 0;

  static bool Carries(EventKind k) { return k == EventKind::kProcessKilled; }
  static Killed Read(const EventWords& w) { return {static_cast<int>(w.a)}; }
  void Write(EventWords& w) const { w.a = static_cast<std::uint32_t>(signal); }
};

// kWaitQueueBlock (with the actor blamed for the wait, or kNoActor) and
// kWaitQueueWake (with the actor woken).
struct WaitQueue {
  std::uint32_t queue = 0;
  ActorId actor = kNoActor;

  static bool Carries(EventKind k) {
    return k == EventKind::kWaitQueueBlock || k == EventKind::kWaitQueueWake;
  }
  static WaitQueue Read(const EventWords& w) { return {w.a, w.b}; }
  void Write(EventWords& w) const {
    w.a = queue;
    w.b = actor;
  }
};

// --- driver calls, made by the acting thread ---

// kDriverCall, logged on return with its result, and kDriverCallBlock (the
// call started waiting; no result).
struct Call {
  DriverCall call = DriverCall::kInit;
  std::uint32_t flags = 0;  // kCallFromCallback (sim/driver_api.h)
  CuResult result = CuResult::kSuccess;

  static bool Carries(EventKind k) {
    return k == EventKind::kDriverCall || k == EventKind::kDriverCallBlock;
  }
  static Call Read(const EventWords& w) {
    return {static_cast<DriverCall>(w.a), w.b, internal::ResultOf(w.x)};
  }
  void Write(EventWords& w) const {
    w.a = static_cast<std::uint32_t>(call);
    w.b = flags;
    w.x = internal::WordOf(result);
  }
};

// --- device memory ---

// A block of device memory: kAlloc, kFree, kAsyncFreeComplete.
struct Block {
  std::uint64_t ptr = 0;
  std::uint64_t bytes = 0;

  static bool Carries(EventKind k) {
    return k == EventKind::kAlloc || k == EventKind::kFree || k == EventKind::kAsyncFreeComplete;
  }
  static Block Read(const EventWords& w) { return {w.x, w.y}; }
  void Write(EventWords& w) const {
    w.x = ptr;
    w.y = bytes;
  }
};

// kAllocFailed: the bytes asked for and the error returned.
struct AllocFailed {
  std::uint64_t bytes = 0;
  CuResult result = CuResult::kSuccess;

  static bool Carries(EventKind k) { return k == EventKind::kAllocFailed; }
  static AllocFailed Read(const EventWords& w) { return {w.y, internal::ResultOf(w.x)}; }
  void Write(EventWords& w) const {
    w.y = bytes;
    w.x = internal::WordOf(result);
  }
};

// kMemcpy: a copy between the host and a device block.
struct Memcpy {
  bool to_device = false;
  std::uint64_t ptr = 0;
  std::uint64_t bytes = 0;

  static bool Carries(EventKind k) { return k == EventKind::kMemcpy; }
  static Memcpy Read(const EventWords& w) { return {w.a == 1, w.x, w.y}; }
  void Write(EventWords& w) const {
    w.a = to_device ? 1 : 0;
    w.x = ptr;
    w.y = bytes;
  }
};

// --- kernels ---

// What every kernel event names: kKernelEnqueue, kKernelStart, kKernelEnd,
// kKernelDropped (queued work discarded after a sticky error).
struct Kernel {
  std::uint32_t kernel = 0;
  std::uint32_t stream = 0;
  std::uint32_t region_tag = 0;  // 0: no region
  std::uint32_t slots = 0;       // teams * warps: the warps' stack slots

  static bool Carries(EventKind k) {
    return k == EventKind::kKernelEnqueue || k == EventKind::kKernelStart ||
           k == EventKind::kKernelEnd || k == EventKind::kKernelDropped;
  }
  static Kernel Read(const EventWords& w) { return {w.a, w.b, w.c, w.d}; }
  void Write(EventWords& w) const {
    w.a = kernel;
    w.b = stream;
    w.c = region_tag;
    w.d = slots;
  }
};

// kKernelEnqueue and kKernelStart (the GPU starts it: its warps now use their
// slots), with the stacks the kernel was given.
struct KernelLaunch {
  Kernel kernel;
  std::uint64_t stacks = 0;    // the stacks block's base
  std::uint64_t per_warp = 0;  // stack bytes per warp slot

  static bool Carries(EventKind k) {
    return k == EventKind::kKernelEnqueue || k == EventKind::kKernelStart;
  }
  static KernelLaunch Read(const EventWords& w) { return {Kernel::Read(w), w.x, w.y}; }
  void Write(EventWords& w) const {
    kernel.Write(w);
    w.x = stacks;
    w.y = per_warp;
  }
};

// kKernelEnd: kSuccess, or the trap's code.
struct KernelEnd {
  Kernel kernel;
  CuResult result = CuResult::kSuccess;

  static bool Carries(EventKind k) { return k == EventKind::kKernelEnd; }
  static KernelEnd Read(const EventWords& w) { return {Kernel::Read(w), internal::ResultOf(w.x)}; }
  void Write(EventWords& w) const {
    kernel.Write(w);
    w.x = internal::WordOf(result);
  }
};

// kKernelVars, logged right after its kernel's kKernelEnqueue: the kernel's
// variable table (KernelArgs::vars) and the program allocation it uses
// (KernelArgs::data, 0: none).
struct KernelVars {
  std::uint32_t kernel = 0;
  std::uint64_t table = 0;
  std::uint64_t data = 0;

  static bool Carries(EventKind k) { return k == EventKind::kKernelVars; }
  static KernelVars Read(const EventWords& w) { return {w.a, w.x, w.y}; }
  void Write(EventWords& w) const {
    w.a = kernel;
    w.x = table;
    w.y = data;
  }
};

// kStickyError: the error that poisons the context from here on.
struct StickyError {
  CuResult code = CuResult::kSuccess;

  static bool Carries(EventKind k) { return k == EventKind::kStickyError; }
  static StickyError Read(const EventWords& w) { return {internal::ResultOf(w.x)}; }
  void Write(EventWords& w) const { w.x = internal::WordOf(code); }
};

// --- events, and words the GPU writes ---

// kEventRecord and kEventComplete: a CUDA event on its stream.
struct CudaEvent {
  std::uint32_t event = 0;
  std::uint32_t stream = 0;

  static bool Carries(EventKind k) {
    return k == EventKind::kEventRecord || k == EventKind::kEventComplete;
  }
  static CudaEvent Read(const EventWords& w) { return {w.a, w.b}; }
  void Write(EventWords& w) const {
    w.a = event;
    w.b = stream;
  }
};

// kHostWordWrite (EXT-01): the GPU writes a value into a host word.
struct HostWordWrite {
  std::uint32_t word = 0;
  std::uint32_t stream = 0;
  std::uint64_t value = 0;

  static bool Carries(EventKind k) { return k == EventKind::kHostWordWrite; }
  static HostWordWrite Read(const EventWords& w) { return {w.a, w.b, w.x}; }
  void Write(EventWords& w) const {
    w.a = word;
    w.b = stream;
    w.x = value;
  }
};

// --- what the runtime says about itself (core/observer.h) ---

// kRegionBegin, with the stacks bytes the region needs while it runs, and
// kRegionEnd.
struct Region {
  std::uint32_t region = 0;
  std::uint64_t stacks_bytes = 0;  // kRegionBegin

  static bool Carries(EventKind k) {
    return k == EventKind::kRegionBegin || k == EventKind::kRegionEnd;
  }
  static Region Read(const EventWords& w) { return {w.c, w.x}; }
  void Write(EventWords& w) const {
    w.c = region;
    w.x = stacks_bytes;
  }
};

// kFatalReported (with the region it is attributed to) and kErrorReported (a
// non-fatal message): the error and the message's key (SimView::MessageText).
struct Reported {
  std::uint32_t region = 0;  // kFatalReported
  CuResult code = CuResult::kSuccess;
  std::uint32_t message = 0;

  static bool Carries(EventKind k) {
    return k == EventKind::kFatalReported || k == EventKind::kErrorReported;
  }
  static Reported Read(const EventWords& w) { return {w.c, internal::ResultOf(w.x), w.d}; }
  void Write(EventWords& w) const {
    w.c = region;
    w.x = internal::WordOf(code);
    w.d = message;
  }
};

// kCacheHeld: the bytes the stacks cache holds.
struct CacheHeld {
  std::uint64_t bytes = 0;

  static bool Carries(EventKind k) { return k == EventKind::kCacheHeld; }
  static CacheHeld Read(const EventWords& w) { return {w.x}; }
  void Write(EventWords& w) const { w.x = bytes; }
};

// kAllocGaveUp (RuntimeObserver::AllocationFailed): the bytes a device_alloc
// returned no memory for, and what the stacks cache held then.
struct AllocGaveUp {
  std::uint64_t bytes = 0;
  std::uint64_t cached_bytes = 0;

  static bool Carries(EventKind k) { return k == EventKind::kAllocGaveUp; }
  static AllocGaveUp Read(const EventWords& w) { return {w.x, w.y}; }
  void Write(EventWords& w) const {
    w.x = bytes;
    w.y = cached_bytes;
  }
};

// kProbe: the engine's probe registry's id (names live there).
struct Probe {
  std::uint32_t probe = 0;

  static bool Carries(EventKind k) { return k == EventKind::kProbe; }
  static Probe Read(const EventWords& w) { return {w.a}; }
  void Write(EventWords& w) const { w.a = probe; }
};

// kSharedAccess: a read or write of shared state (core/shared.h) and how its
// guard ordered it.
struct SharedAccess {
  std::uint32_t object = 0;
  bool write = false;
  SharedGuard guard = SharedGuard::kUnguarded;

  static bool Carries(EventKind k) { return k == EventKind::kSharedAccess; }
  static SharedAccess Read(const EventWords& w) {
    return {w.a, w.b == 1, static_cast<SharedGuard>(w.c)};
  }
  void Write(EventWords& w) const {
    w.a = object;
    w.b = write ? 1 : 0;
    w.c = static_cast<std::uint32_t>(guard);
  }
};

// kProgramCall: a real program's thread call (sim/program): the call's name
// key (SimView::MessageText), the object (mutex, wait queue or thread) and
// the result.
struct ProgramCall {
  std::uint32_t name = 0;
  std::uint32_t object = 0;
  std::int64_t result = 0;

  static bool Carries(EventKind k) { return k == EventKind::kProgramCall; }
  static ProgramCall Read(const EventWords& w) {
    return {w.d, w.a, static_cast<std::int64_t>(w.x)};
  }
  void Write(EventWords& w) const {
    w.d = name;
    w.a = object;
    w.x = static_cast<std::uint64_t>(result);
  }
};

}  // namespace stackcheck::sim::payload

namespace stackcheck::sim {

// Whether `e` leaves every shared access ordered by its guard's critical
// sections: snapshots never race, and anything else not made under its
// guard's lock may; an unlock by someone other than the holder does not order
// the next lock after the holder's section. Other events order nothing away.
// (data-race builds no clocks when all events keep it.)
inline bool KeepsGuardOrder(const Event& e) {
  if (e.kind == EventKind::kSharedAccess) {
    const SharedGuard guard = e.As<payload::SharedAccess>().guard;
    return guard == SharedGuard::kHeld || guard == SharedGuard::kSnapshot;
  }
  if (e.kind == EventKind::kMutexUnlock) return e.As<payload::MutexHeld>().owner == e.actor;
  return true;
}

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_EVENT_PAYLOADS_H_
