#include "sim/monitors/data_race.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/cu_result.h"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
namespace {

std::string SharedLabel(const SimView& view, std::uint32_t object) {
  const absl::string_view name = view.SharedName(object);
  return name.empty() ? absl::StrCat("shared object ", object) : absl::StrCat("'", name, "'");
}

}  // namespace

void DataRaceMonitor::Reset() {
  clocks_.Reset();
  read_epochs_.Clear();
  read_events_.Clear();
  writes_.clear();
  seen_ = 0;
  raced_ = false;
}

void DataRaceMonitor::WidenReads() {
  const std::uint32_t to = clocks_.width();
  read_epochs_.Widen(width_, to);
  read_events_.Widen(width_, to);
  width_ = to;
}

std::optional<Violation> DataRaceMonitor::OnEvent(absl::Span<const Event> events,
                                                  const SimView& /*view*/) {
  CatchUp(events);
  return std::nullopt;
}

void DataRaceMonitor::CatchUp(absl::Span<const Event> events) {
  for (; seen_ < events.size(); ++seen_) {
    const Event& e = events[seen_];
    if ((kActsOn & KindBit(e.kind)) != 0) Apply(e, static_cast<std::uint32_t>(seen_));
  }
}

void DataRaceMonitor::Apply(const Event& e, std::uint32_t index) {
  if (e.kind == EventKind::kSharedAccess) {
    Access(e, index);
  } else {
    clocks_.Apply(e);
  }
}

bool DataRaceMonitor::OrderedByGuards(absl::Span<const Event> events) {
  return std::all_of(events.begin(), events.end(), KeepsGuardOrder);
}

std::optional<Violation> DataRaceMonitor::OnQuiescence(absl::Span<const Event> events,
                                                       const SimView& view, bool) {
  if (seen_ == 0) {
    // The engine keeps the answer as it logs; a view that does not, the scan.
    const std::optional<bool> kept = view.guards_order_accesses();
    if (kept.has_value() ? *kept : OrderedByGuards(events)) return std::nullopt;
  }
  CatchUp(events);
  if (!raced_ || race_later_ >= events.size()) return std::nullopt;
  return Complain(events, view);
}

void DataRaceMonitor::Access(const Event& e, std::uint32_t index) {
  const auto access = e.As<payload::SharedAccess>();
  if (access.object >= kMaxIndexedId || e.actor == kNoActor || e.actor >= kMaxIndexedId) return;
  // Atomic: ordered by the search, not a race.
  if (access.guard == SharedGuard::kSnapshot) return;
  const ActorId self = e.actor;
  const Entry* clock = clocks_.Clock(self);
  if (ABSL_PREDICT_FALSE(clocks_.width() != width_)) WidenReads();
  if (writes_.size() <= access.object) writes_.resize(access.object + 1);
  Write& w = writes_[access.object];
  if (w.epoch != 0 && w.actor != self && w.epoch > clock[w.actor]) Race(w.event, index);
  Entry* read_epochs = read_epochs_.Row(access.object, width_);
  Entry* read_events = read_events_.Row(access.object, width_);
  if (access.write) {
    // The actor's own reads are at or below its clock: only another's count.
    if (vector_clock::AnyAfter(read_epochs, clock, width_)) {
      for (ActorId u = 0; u < width_; ++u) {
        if (u != self && read_epochs[u] > clock[u]) Race(read_events[u], index);
      }
    }
    w = Write{self, clock[self], index};
    std::fill(read_epochs, read_epochs + width_, 0);
  } else {
    read_epochs[self] = clock[self];
    read_events[self] = index;
  }
}

Violation DataRaceMonitor::Complain(absl::Span<const Event> events, const SimView& view) const {
  const Event& now = events[race_later_];
  const Event& then = events[race_earlier_];
  const auto now_access = now.As<payload::SharedAccess>();
  const auto then_access = then.As<payload::SharedAccess>();
  const std::uint32_t earlier = race_earlier_;
  auto what = [](const payload::SharedAccess& a) { return a.write ? "writes" : "reads"; };
  auto guard = [](const payload::SharedAccess& a) {
    return a.guard == SharedGuard::kHeld          ? "with its guard held"
           : a.guard == SharedGuard::kWriteInPass ? "in a pass under its guard"
                                                  : "unguarded";
  };
  Violation v = ViolationAtLast(
      kName, events,
      absl::StrCat(Who(view, now.actor), " ", what(now_access), " ",
                   SharedLabel(view, now_access.object), " ", guard(now_access), " (event #",
                   race_later_, ") while ", Who(view, then.actor), " ", what(then_access), " it ",
                   guard(then_access), " (event #", earlier,
                   "): no lock, spawn, join, callback or synchronisation orders them"));
  v.site_index = race_later_;
  v.cause_index = race_earlier_;
  v.unordered_sites = true;
  return v;
}

}  // namespace stackcheck::sim
