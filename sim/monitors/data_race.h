// data-race: two accesses to the same shared state (core/shared.h, the
// kSharedAccess events), at least one a write, by different actors, neither
// ordered before the other by happens-before (sync_clocks.h: locks, thread
// spawn and join, callbacks, kernel enqueue and synchronising calls).
// The report names both accesses. It is made when the execution ends (process
// exit or quiescence), for the first race: a race is a cause, and the
// violation it leads to later in the same execution (a use after free, a
// leak) is the one reported when there is one. Atomic snapshots and state
// without Shared are not checked.
//
// Since nothing is reported before the end, the monitor reads no event as it
// is logged (reads() is empty): OnQuiescence walks the trace once, with no
// call per event. Most executions need no clocks: when every access was made
// by the owner of its guard, and every unlock by the mutex's holder, each
// object's accesses sit in critical sections of one mutex, each unlocked
// before the next is locked, so happens-before orders them all and none can
// race. The engine keeps that answer as it logs (SimView::
// guards_order_accesses); with a view that does not, a scan of the trace
// gives it. The clocks are built only when it is no.
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
#include "sim/monitors/sync_clocks.h"
#include "sim/vector_clock.h"

namespace stackcheck::sim {

class DataRaceMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "data-race";

  absl::string_view property() const override { return kName; }
  // None as they are logged: the trace is read at the end (see above).
  EventKindMask reads() const override { return 0; }
  // The kinds that end-of-execution pass acts on.
  static constexpr EventKindMask kActsOn = SyncClocks::kActsOn | KindBit(EventKind::kSharedAccess);
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;
  std::optional<Violation> OnQuiescence(absl::Span<const Event> events, const SimView& view,
                                        bool all_finished) override;
  // Whether the guards alone order every access of `events` (see above).
  static bool OrderedByGuards(absl::Span<const Event> events);

 private:
  using Entry = vector_clock::Entry;
  struct Write {
    ActorId actor = kNoActor;
    Entry epoch = 0;  // the writer's own clock entry at the write; 0: none
    std::uint32_t event = 0;
  };

  // Widens the tables of reads to the clocks' width.
  ABSL_ATTRIBUTE_NOINLINE void WidenReads();
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

  SyncClocks clocks_;
  std::uint32_t width_ = 8;       // of the tables below, following clocks_.width()
  ClockTable read_epochs_;        // by object: each actor's last read since the write
  ClockTable read_events_;        // ... and its event index
  std::vector<Write> writes_;     // by object
  std::vector<ActorId> holders_;  // by mutex, for OrderedByGuards
  std::size_t seen_ = 0;          // events taken in so far
  bool raced_ = false;            // the first race, reported at the end
  std::uint32_t race_earlier_ = 0, race_later_ = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_DATA_RACE_H_
