#include "sim/monitors/bounded_cache.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sim/event_format.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

std::optional<Violation> BoundedCacheMonitor::OnEvent(
    absl::Span<const Event> events, const SimView& view) {
  const Event& e = events.back();
  if (e.kind != EventKind::kCacheHeld) return std::nullopt;
  // On a poisoned context no block can be freed (SEM-05): the cache keeps
  // what it had, whatever the policy wants.
  if (view.sticky_error()) return std::nullopt;
  const std::uint64_t held = e.x;
  const std::uint64_t needed = e.y;
  if (held <= std::max(soft_limit_, needed)) return std::nullopt;
  return AboveLimit(events, view);
}

std::optional<Violation> BoundedCacheMonitor::AboveLimit(absl::Span<const Event> events,
                                                         const SimView& view) const {
  const Event& e = events.back();
  const std::uint64_t held = e.x;
  const std::uint64_t needed = e.y;
  return ViolationAtLast(
      kName, events,
      absl::StrCat("when device_alloc on ", Who(view, e.actor),
                   " has applied the soft limit, the stacks cache holds ", FormatBytes(held),
                   ", above both the soft limit ", FormatBytes(soft_limit_),
                   " and the largest block a running region needs (",
                   FormatBytes(needed), ")"));
}

}  // namespace stackcheck::sim
