#include "sim/monitors/bounded_cache.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

void BoundedCacheMonitor::Reset() {
  clocks_.Reset();
  regions_.clear();
  seen_ = 0;
}

std::optional<Violation> BoundedCacheMonitor::OnEvent(absl::Span<const Event> events,
                                                      const SimView& view) {
  const Event& e = events.back();
  if (e.kind != EventKind::kCacheHeld) return std::nullopt;
  // On a poisoned context no block can be freed (SEM-05): the cache keeps
  // what it had, whatever the policy wants.
  if (view.sticky_error()) return std::nullopt;
  const std::uint64_t held = e.As<payload::CacheHeld>().bytes;
  if (held <= soft_limit_) return std::nullopt;
  if (e.actor == kNoActor || e.actor >= kMaxIndexedId) return std::nullopt;
  CatchUp(events);
  const std::uint64_t needed = LargestNeed(e.actor);
  if (held <= needed) return std::nullopt;
  return AboveLimit(events, view, needed);
}

void BoundedCacheMonitor::CatchUp(absl::Span<const Event> events) {
  for (; seen_ < events.size(); ++seen_) {
    const Event& e = events[seen_];
    if (e.kind == EventKind::kRegionBegin || e.kind == EventKind::kRegionEnd) {
      if (e.actor == kNoActor || e.actor >= kMaxIndexedId) continue;
      const vector_clock::Entry epoch = clocks_.EpochOf(e.actor);
      if (e.kind == EventKind::kRegionBegin) {
        regions_.push_back(Region{e.actor, e.As<payload::Region>().stacks_bytes, epoch, 0});
        continue;
      }
      // A thread runs one region at a time: its newest one ends.
      for (auto it = regions_.rbegin(); it != regions_.rend(); ++it) {
        if (it->actor == e.actor && it->ended == 0) {
          it->ended = epoch;
          break;
        }
      }
      continue;
    }
    clocks_.Apply(e);
  }
}

std::uint64_t BoundedCacheMonitor::LargestNeed(ActorId actor) {
  const vector_clock::Entry* now = clocks_.Clock(actor);
  std::uint64_t largest = 0;
  for (const Region& r : regions_) {
    const bool began_before = r.began <= now[r.actor];
    const bool ended_before =
        bound_ == CacheBound::kSoftLimit && r.ended != 0 && r.ended <= now[r.actor];
    if (began_before && !ended_before) largest = std::max(largest, r.need);
  }
  return largest;
}

std::optional<Violation> BoundedCacheMonitor::AboveLimit(absl::Span<const Event> events,
                                                         const SimView& view,
                                                         std::uint64_t needed) const {
  const Event& e = events.back();
  const std::uint64_t held = e.As<payload::CacheHeld>().bytes;
  if (bound_ == CacheBound::kLargestRegion) {
    return ViolationAtLast(kName, events,
                           absl::StrCat("when device_alloc on ", Who(view, e.actor),
                                        " starts, the stacks cache holds ", FormatBytes(held),
                                        ", above both the soft limit ", FormatBytes(soft_limit_),
                                        " and the largest block any region so far has needed (",
                                        FormatBytes(needed), ")"));
  }
  return ViolationAtLast(
      kName, events,
      absl::StrCat("when device_alloc on ", Who(view, e.actor),
                   " has applied the soft limit, the stacks cache holds ", FormatBytes(held),
                   ", above both the soft limit ", FormatBytes(soft_limit_),
                   " and the largest block a running region needs (", FormatBytes(needed), ")"));
}

}  // namespace stackcheck::sim
