// data-race: two accesses to the same shared state (core/shared.h, the
// kSharedAccess events), at least one a write, by different actors, neither
// ordered before the other by happens-before. Happens-before is program order
// plus these edges, tracked with vector clocks:
// - a mutex unlock (by anyone, owner or not) before the next lock of it;
// - a thread's spawn before its first event; its end before a join of it;
// - a stream callback's or host function's enqueue before it runs, and the
//   stream's earlier kernels before it too;
// - a kernel's enqueue before its start; the kernels started so far before the
//   return of a synchronising call that succeeded (cuCtxSynchronize,
//   cuStreamSynchronize, cuEventSynchronize, a stream or event query that
//   answered "complete", the synchronous copies, cuCtxDestroy): events and
//   stream waits order through those calls.
// The report names both accesses. It is made when the execution ends (process
// exit or quiescence), for the first race: a race is a cause, and the
// violation it leads to later in the same execution (a use after free, a
// leak) is the one reported when there is one. Atomic snapshots and state
// without Shared are not checked; a wait that returned an error orders
// nothing.
//
// Since nothing is reported before the end, the monitor reads no event as it
// is logged (reads() is empty): OnQuiescence walks the trace once, with no
// call per event.
// OnEvent, for callers that feed events one by one, catches up the same way.
#ifndef STACKCHECK_SIM_MONITORS_DATA_RACE_H_
#define STACKCHECK_SIM_MONITORS_DATA_RACE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "sim/monitor.h"
#include "sim/vector_clock.h"

namespace stackcheck::sim {

class DataRaceMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "data-race";

  absl::string_view property() const override { return kName; }
  // None as they are logged: the trace is read at the end (see above).
  EventKindMask reads() const override { return 0; }
  // The kinds that end-of-execution pass acts on.
  static constexpr EventKindMask kActsOn =
      Kinds({EventKind::kThreadStart, EventKind::kJoin, EventKind::kMutexLock,
             EventKind::kMutexPass, EventKind::kMutexUnlock, EventKind::kDriverCall,
             EventKind::kCallbackStart, EventKind::kHostFnStart, EventKind::kKernelEnqueue,
             EventKind::kKernelStart, EventKind::kSharedAccess});
  static constexpr std::uint64_t kSynchronisingCalls =
      CallBit(DriverCall::kCtxSynchronize) | CallBit(DriverCall::kStreamSynchronize) |
      CallBit(DriverCall::kEventSynchronize) | CallBit(DriverCall::kStreamQuery) |
      CallBit(DriverCall::kEventQuery) | CallBit(DriverCall::kMemcpyHtoD) |
      CallBit(DriverCall::kMemcpyDtoH) | CallBit(DriverCall::kCtxDestroy);
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events,
                                   const SimView& view) override;
  std::optional<Violation> OnQuiescence(absl::Span<const Event> events, const SimView& view,
                                        bool all_finished) override;

 private:
  using Entry = vector_clock::Entry;
  // Rows of width_ entries, one per id (actor, mutex, callback, kernel,
  // object); rows and width only grow, so after the first executions no
  // event allocates.
  class Table {
   public:
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
  struct Write {
    ActorId actor = kNoActor;
    Entry epoch = 0;  // the writer's own clock entry at the write; 0: none
    std::uint32_t event = 0;
  };

  // The clock of `actor`, whose own entry is at least 1.
  Entry* ClockOf(ActorId actor) {
    if (ABSL_PREDICT_FALSE(actor >= width_)) Widen(actor);
    Entry* clock = actors_.Row(actor, width_);
    if (clock[actor] == 0) clock[actor] = 1;
    return clock;
  }
  void Fit(ActorId actor) {
    if (ABSL_PREDICT_FALSE(actor >= width_)) Widen(actor);
  }
  // Widens every table so that `actor` (at least width_) has an entry.
  ABSL_ATTRIBUTE_NOINLINE void Widen(ActorId actor);
  // sim/vector_clock.h: width_ is a multiple of 8.
  void Join(Entry* into, const Entry* from) const { vector_clock::Join(into, from, width_); }
  bool AnyAfter(const Entry* later, const Entry* clock) const {
    return vector_clock::AnyAfter(later, clock, width_);
  }
  // Copies the actor's clock into `into`, then starts its next epoch.
  void Release(ActorId actor, Entry* into);
  void JoinGpu(ActorId actor);
  // Takes in the events from seen_ to the end of `events`.
  void CatchUp(absl::Span<const Event> events);
  void Apply(const Event& e, std::uint32_t index);
  void Access(const Event& e, std::uint32_t index);
  // Remembers the first race: accesses at event indices `earlier` and `later`.
  void Race(std::uint32_t earlier, std::uint32_t later) {
    if (!raced_) raced_ = true, race_earlier_ = earlier, race_later_ = later;
  }
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD Violation Complain(absl::Span<const Event> events,
                                                                 const SimView& view) const;

  std::uint32_t width_ = 8;  // a multiple of 8 above every actor seen
  Table actors_;             // by actor
  Table mutexes_;            // by mutex: the last unlock's clock
  Table callbacks_;          // by callback id: the enqueuer's clock
  Table kernels_;            // by kernel id: the enqueuer's clock
  Table read_epochs_;        // by object: each actor's last read since the write
  Table read_events_;        // ... and its event index
  std::vector<Write> writes_;   // by object
  std::vector<ActorId> gpu_;    // actors that started kernels (streams)
  std::vector<ActorId> stream_actor_;  // by stream index, kNoActor if unseen
  std::uint32_t next_callback_ = 0;   // the engine numbers them in enqueue order
  std::size_t seen_ = 0;              // events taken in so far
  bool raced_ = false;  // the first race, reported at the end
  std::uint32_t race_earlier_ = 0, race_later_ = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_DATA_RACE_H_
