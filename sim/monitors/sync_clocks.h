// Happens-before over one execution's trace, as vector clocks: program order
// plus these edges, which are the synchronisation a program can rely on:
// - a mutex unlock (by anyone, owner or not) before the next lock of it, and
//   a pass (Mutex::ReadUnder: a read while nobody holds it) after the unlock
//   before it and before the next lock;
// - a thread's spawn before its first event; its end before a join of it;
// - a stream callback's or host function's enqueue before it runs, and the
//   stream's earlier kernels before it too;
// - a kernel's enqueue before its start; the kernels started so far before the
//   return of a synchronising call that succeeded (cuCtxSynchronize,
//   cuStreamSynchronize, cuEventSynchronize, a stream or event query that
//   answered "complete", the synchronous copies, cuCtxDestroy): events and
//   stream waits order through those calls. A wait that returned an error
//   orders nothing.
//
// Every edge joins two steps the search treats as dependent (they touch a
// common object), so the clocks are the same in every execution that DPOR
// counts as equivalent: a verdict that depends only on them (and on values
// read under a lock) does not depend on which of those executions ran.
//
// Used by the monitors that judge "A before B" (data-race, bounded-cache).
// An event of actor `a` whose own entry was `epoch` (EpochOf, read as the
// event is taken in) happens before a later point whose clock is `c` exactly
// when epoch <= c[a]: each release copies the clock, then starts the actor's
// next epoch.
#ifndef STACKCHECK_SIM_MONITORS_SYNC_CLOCKS_H_
#define STACKCHECK_SIM_MONITORS_SYNC_CLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "sim/monitor.h"
#include "sim/vector_clock.h"

namespace stackcheck::sim {

// Rows of `width` clock entries, one per id (actor, mutex, callback, kernel,
// object); rows and width only grow, so after the first executions nothing
// allocates.
class ClockTable {
 public:
  using Entry = vector_clock::Entry;
  Entry* Row(std::size_t row, std::uint32_t width) {
    if ((row + 1) * width > data_.size()) data_.resize((row + 1) * width, 0);
    rows_ = row + 1 > rows_ ? row + 1 : rows_;
    return &data_[row * width];
  }
  bool Has(std::size_t row) const { return row < rows_; }
  // Re-lays the rows out at a larger width.
  void Widen(std::uint32_t from, std::uint32_t to);
  void Clear();

 private:
  std::vector<Entry> data_;
  std::size_t rows_ = 0;
};

class SyncClocks {
 public:
  using Entry = vector_clock::Entry;
  // The kinds Apply acts on.
  static constexpr EventKindMask kActsOn =
      Kinds({EventKind::kThreadStart, EventKind::kJoin, EventKind::kMutexLock,
             EventKind::kMutexPass, EventKind::kMutexPassEnd, EventKind::kMutexUnlock,
             EventKind::kDriverCall, EventKind::kCallbackStart, EventKind::kHostFnStart,
             EventKind::kKernelEnqueue, EventKind::kKernelStart});
  static constexpr std::uint64_t kSynchronisingCalls =
      CallBit(DriverCall::kCtxSynchronize) | CallBit(DriverCall::kStreamSynchronize) |
      CallBit(DriverCall::kEventSynchronize) | CallBit(DriverCall::kStreamQuery) |
      CallBit(DriverCall::kEventQuery) | CallBit(DriverCall::kMemcpyHtoD) |
      CallBit(DriverCall::kMemcpyDtoH) | CallBit(DriverCall::kCtxDestroy);

  void Reset();
  // Takes in the next event of the trace (any kind: others change nothing).
  void Apply(const Event& e);

  // The clock of `actor` (its own entry at least 1), valid until the next
  // call of this object. `actor` below kMaxIndexedId.
  const Entry* Clock(ActorId actor) { return ClockOf(actor); }
  // The actor's own entry now: an event of it taken in now has this epoch.
  Entry EpochOf(ActorId actor) { return ClockOf(actor)[actor]; }
  // Entries per clock: a multiple of 8 above every actor seen. Users keeping
  // tables of their own widen them when this grows.
  std::uint32_t width() const { return width_; }

 private:
  Entry* ClockOf(ActorId actor) {
    if (ABSL_PREDICT_FALSE(actor >= width_)) Widen(actor);
    Entry* clock = actors_.Row(actor, width_);
    if (clock[actor] == 0) clock[actor] = 1;
    return clock;
  }
  void Fit(ActorId actor) {
    if (ABSL_PREDICT_FALSE(actor >= width_)) Widen(actor);
  }
  ABSL_ATTRIBUTE_NOINLINE void Widen(ActorId actor);
  void Join(Entry* into, const Entry* from) const { vector_clock::Join(into, from, width_); }
  // Copies the actor's clock into `into`, then starts its next epoch.
  void Release(ActorId actor, Entry* into);
  void JoinGpu(ActorId actor);
  // Apply's edges, by event.
  void StartThread(ActorId child, ActorId parent);
  void AcquireMutex(ActorId actor, std::uint32_t mutex);
  void DriverCallReturned(const Event& e);
  void KernelStarted(const Event& e);
  void CallbackStarted(const Event& e);

  std::uint32_t width_ = 8;
  ClockTable actors_;                  // by actor
  ClockTable mutexes_;                 // by mutex: the last unlock's clock
  ClockTable passes_;                  // by mutex: the passes' clocks since its last lock
  ClockTable callbacks_;               // by callback id: the enqueuer's clock
  ClockTable kernels_;                 // by kernel id: the enqueuer's clock
  std::vector<ActorId> gpu_;           // actors that started kernels (streams)
  std::vector<ActorId> stream_actor_;  // by stream index, kNoActor if unseen
  std::uint32_t next_callback_ = 0;    // the engine numbers them in enqueue order
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_SYNC_CLOCKS_H_
