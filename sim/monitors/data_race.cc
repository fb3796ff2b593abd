#include "sim/monitors/data_race.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/cu_result.h"
#include "sim/driver_api.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
namespace {

bool Synchronises(DriverCall api) {
  // "complete" from a stream or event query is kSuccess; kNotReady orders nothing.
  return (DataRaceMonitor::kSynchronisingCalls & CallBit(api)) != 0;
}

std::string SharedLabel(const SimView& view, std::uint32_t object) {
  const absl::string_view name = view.SharedName(object);
  return name.empty() ? absl::StrCat("shared object ", object) : absl::StrCat("'", name, "'");
}

}  // namespace

void DataRaceMonitor::Table::Widen(std::uint32_t from, std::uint32_t to) {
  data_.resize(rows_ * to, 0);
  for (std::size_t r = rows_; r-- > 0;) {
    std::copy_backward(data_.begin() + r * from, data_.begin() + r * from + from,
                       data_.begin() + r * to + from);
    std::fill(data_.begin() + r * to + from, data_.begin() + (r + 1) * to, 0);
  }
}

void DataRaceMonitor::Table::Clear() {
  std::fill(data_.begin(), data_.end(), 0);
  rows_ = 0;
}

void DataRaceMonitor::Reset() {
  actors_.Clear();
  mutexes_.Clear();
  callbacks_.Clear();
  kernels_.Clear();
  read_epochs_.Clear();
  read_events_.Clear();
  writes_.clear();
  gpu_.clear();
  stream_actor_.clear();
  next_callback_ = 0;
  seen_ = 0;
  raced_ = false;
}

void DataRaceMonitor::Widen(ActorId actor) {
  std::uint32_t to = width_;
  while (to <= actor) to *= 2;
  for (Table* t : {&actors_, &mutexes_, &callbacks_, &kernels_, &read_epochs_, &read_events_}) {
    t->Widen(width_, to);
  }
  width_ = to;
}

void DataRaceMonitor::Release(ActorId actor, Entry* into) {
  const Entry* clock = ClockOf(actor);
  vector_clock::Copy(into, clock, width_);
  ++actors_.Row(actor, width_)[actor];
}

void DataRaceMonitor::JoinGpu(ActorId actor) {
  for (ActorId g : gpu_) {
    Entry* clock = ClockOf(actor);  // the row may move as ClockOf(g) grows the table
    const Entry* from = ClockOf(g);
    clock = actors_.Row(actor, width_);
    Join(clock, from);
  }
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
  if (e.actor == kNoActor || e.actor >= kMaxIndexedId) return;
  switch (e.kind) {
    case EventKind::kSharedAccess:
      Access(e, index);
      return;
    case EventKind::kThreadStart:
      if (e.a != kNoActor && e.a < kMaxIndexedId) {
        ClockOf(e.actor);
        Fit(e.a);
        Entry* parent = ClockOf(e.a);
        Join(actors_.Row(e.actor, width_), parent);
        ++parent[e.a];
      }
      return;
    case EventKind::kJoin:
      if (e.a < kMaxIndexedId && actors_.Has(e.a)) {
        Fit(e.a);
        Entry* joiner = ClockOf(e.actor);  // rows only grow past both now
        Join(joiner, actors_.Row(e.a, width_));
      }
      return;
    case EventKind::kMutexLock:
      if (e.a < kMaxIndexedId && mutexes_.Has(e.a)) {
        Entry* clock = ClockOf(e.actor);
        Join(clock, mutexes_.Row(e.a, width_));
      }
      return;
    case EventKind::kMutexPass:
      // Acquires what the holders released; releases nothing: passes only
      // read, and commute with each other in the search, so one must not
      // order the next.
      if (e.a < kMaxIndexedId && mutexes_.Has(e.a))
        Join(ClockOf(e.actor), mutexes_.Row(e.a, width_));
      return;
    case EventKind::kMutexUnlock:
      if (e.a < kMaxIndexedId) {
        ClockOf(e.actor);
        Release(e.actor, mutexes_.Row(e.a, width_));
      }
      return;
    case EventKind::kDriverCall: {
      if (e.x != static_cast<std::uint64_t>(CuResult::kSuccess)) return;
      const auto api = static_cast<DriverCall>(e.a);
      if (api == DriverCall::kStreamAddCallback || api == DriverCall::kLaunchHostFunc) {
        const std::uint32_t id = next_callback_++;
        if (id < kMaxIndexedId) {
          ClockOf(e.actor);
          Release(e.actor, callbacks_.Row(id, width_));
        }
      } else if (Synchronises(api)) {
        JoinGpu(e.actor);
      }
      return;
    }
    case EventKind::kKernelEnqueue:
      if (e.a < kMaxIndexedId) {
        ClockOf(e.actor);
        Release(e.actor, kernels_.Row(e.a, width_));
      }
      return;
    case EventKind::kKernelStart:
      if (std::find(gpu_.begin(), gpu_.end(), e.actor) == gpu_.end()) gpu_.push_back(e.actor);
      if (e.b < kMaxIndexedId) {
        if (stream_actor_.size() <= e.b) stream_actor_.resize(e.b + 1, kNoActor);
        stream_actor_[e.b] = e.actor;
      }
      if (e.a < kMaxIndexedId && kernels_.Has(e.a)) {
        ClockOf(e.actor);
        Join(actors_.Row(e.actor, width_), kernels_.Row(e.a, width_));
      }
      return;
    case EventKind::kCallbackStart:
    case EventKind::kHostFnStart:
      ClockOf(e.actor);
      if (e.b < kMaxIndexedId && callbacks_.Has(e.b)) {
        Join(actors_.Row(e.actor, width_), callbacks_.Row(e.b, width_));
      }
      if (e.a < stream_actor_.size() && stream_actor_[e.a] != kNoActor) {
        const ActorId stream = stream_actor_[e.a];
        ClockOf(stream);
        Join(actors_.Row(e.actor, width_), actors_.Row(stream, width_));
      }
      return;
    default:
      return;
  }
}

std::optional<Violation> DataRaceMonitor::OnQuiescence(absl::Span<const Event> events,
                                                       const SimView& view, bool) {
  CatchUp(events);
  if (!raced_ || race_later_ >= events.size()) return std::nullopt;
  return Complain(events, view);
}

void DataRaceMonitor::Access(const Event& e, std::uint32_t index) {
  if (e.a >= kMaxIndexedId) return;
  const ActorId self = e.actor;
  const Entry* clock = ClockOf(self);
  if (writes_.size() <= e.a) writes_.resize(e.a + 1);
  Write& w = writes_[e.a];
  if (w.epoch != 0 && w.actor != self && w.epoch > clock[w.actor]) Race(w.event, index);
  Entry* read_epochs = read_epochs_.Row(e.a, width_);
  Entry* read_events = read_events_.Row(e.a, width_);
  if (e.b == 1) {
    // The actor's own reads are at or below its clock: only another's count.
    if (AnyAfter(read_epochs, clock)) {
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

Violation DataRaceMonitor::Complain(absl::Span<const Event> events,
                                    const SimView& view) const {
  const Event& now = events[race_later_];
  const Event& then = events[race_earlier_];
  const std::uint32_t earlier = race_earlier_;
  auto what = [](const Event& a) { return a.b == 1 ? "writes" : "reads"; };
  auto guard = [](const Event& a) { return a.c == 1 ? "with its guard held" : "unguarded"; };
  Violation v = ViolationAtLast(
      kName, events,
      absl::StrCat(Who(view, now.actor), " ", what(now), " ", SharedLabel(view, now.a), " ",
                   guard(now), " (event #", race_later_, ") while ", Who(view, then.actor),
                   " ", what(then), " it ", guard(then), " (event #", earlier,
                   "): no lock, spawn, join, callback or synchronisation orders them"));
  v.site_index = race_later_;
  v.cause_index = race_earlier_;
  v.unordered_sites = true;
  return v;
}

}  // namespace stackcheck::sim
