// The simulator's event stream: one compact record per thing that happened.
//
// Events are appended by the engine (host and device model) and by the runtime
// observer; monitors consume them one at a time, the trace writers render them,
// and the digest of an execution is a hash over them (so two executions with
// the same scenario and schedule must produce identical lists).
#ifndef STACKCHECK_SIM_EVENT_H_
#define STACKCHECK_SIM_EVENT_H_

#include <cassert>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

// How a kSharedAccess was ordered by its object's guard.
enum class SharedGuard : std::uint32_t {
  kUnguarded = 0,
  kHeld = 1,  // made under its guard's lock
  // An atomic snapshot read without the guard (Shared::Snapshot): ordered by
  // the search, never a data race.
  kSnapshot = 2,
  // A write made while its actor only passes under the guard
  // (Mutex::ReadUnder, a section meant for reads): passes do not order each
  // other, so the guard does not order this write.
  kWriteInPass = 3,
};

// Each kind's values are a payload of sim/event_payloads.h, which says what
// they are and where they are kept. Append new kinds: the numbering is hashed
// into every digest.
enum class EventKind : std::uint8_t {
  // --- actors ---
  kThreadStart,
  kThreadEnd,
  kCallbackStart,
  kCallbackEnd,
  kHostFnStart,
  kHostFnEnd,
  kHostFnDropped,  // SEM-06
  // --- host synchronisation ---
  kMutexCreate,
  kMutexLock,   // acquired
  kMutexBlock,  // started waiting
  kMutexTryLockFail,
  kMutexUnlock,
  kMutexDestroy,
  kSleep,
  kJoin,
  kProcessExit,  // the simulated process ends
  // --- driver calls (made by the acting thread) ---
  kDriverCall,       // logged on return
  kDriverCallBlock,  // the call started waiting
  // --- device memory ---
  kAlloc,
  kFree,
  kAllocFailed,
  // --- kernels ---
  kKernelEnqueue,
  kKernelStart,  // the GPU starts it: its warps now use their slots
  kKernelEnd,
  kKernelDropped,  // queued work discarded after a sticky error
  kStickyError,    // the context is poisoned from here on
  // --- events and stream-ordered memory ---
  kEventRecord,
  kEventComplete,
  kAsyncFreeComplete,
  kCtxDestroy,  // the context is gone; its blocks are invalid
  // --- what the runtime says about itself (core/observer.h) ---
  kRegionBegin,
  kRegionEnd,
  kFatalReported,
  kCacheHeld,
  kProbe,  // see probes in properties/
  // --- appended (digests of earlier kinds unchanged) ---
  kHostWordWrite,  // EXT-01
  kKernelVars,     // logged right after its kernel's kKernelEnqueue
  kMemcpy,
  kErrorReported,  // a non-fatal message
  kSharedAccess,   // not hashed into digests
  kProgramCall,    // a real program's thread call (sim/program)
  kWaitQueueBlock,
  kWaitQueueWake,
  kAllocGaveUp,  // RuntimeObserver::AllocationFailed; not hashed into digests
  kMutexPass,    // locked and unlocked in one step: Mutex::ReadUnder
  // After a pass whose read took shared state (its kSharedAccess events come
  // between); not hashed into digests.
  kMutexPassEnd,
  // An exit's handlers (those no earlier exit started) have run: the process
  // may end at any step from here on (it ends once no other actor can move,
  // SimHost::ExitProcess).
  kExitHandlersDone,
  // The process died of a signal (Host::Crash): no handlers ran; a
  // kProcessExit with 128 + the signal follows.
  kProcessKilled,
};

inline constexpr ActorId kNoActor = 0xffffffffu;

// An event's values: four 32-bit and two 64-bit words, whose meaning its kind
// gives. Read and written through the kind's payload (sim/event_payloads.h);
// the words themselves are for what treats every kind alike: the digest,
// rendering a kind not known, and tests that fuzz the storage.
struct EventWords {
  std::uint32_t a = 0, b = 0, c = 0, d = 0;
  std::uint64_t x = 0, y = 0;
};

struct Event {
  std::uint64_t time_ns = 0;  // virtual clock
  ActorId actor = kNoActor;   // who acted (host thread, callback thread, GPU)
  EventKind kind = EventKind::kThreadStart;

  Event() = default;
  // An event whose words are given as they are: for what treats every kind
  // alike (a decoder, a fuzzer). Everything else logs a payload.
  Event(std::uint64_t time, ActorId by, EventKind k, const EventWords& w)
      : time_ns(time), actor(by), kind(k), words_(w) {}
  template <typename Payload>
  Event(std::uint64_t time, ActorId by, EventKind k, const Payload& payload)
      : time_ns(time), actor(by), kind(k) {
    assert(Payload::Carries(k));
    payload.Write(words_);
  }

  // The payload this event's kind carries: e.As<payload::Mutex>().mutex.
  template <typename Payload>
  Payload As() const {
    assert(Payload::Carries(kind));
    return Payload::Read(words_);
  }

  // The bare words: for the digest, for rendering a kind this build does not
  // know, and for tests that compare or fuzz every word.
  const EventWords& words() const { return words_; }

 private:
  EventWords words_;
};

absl::string_view EventKindName(EventKind kind);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_EVENT_H_
