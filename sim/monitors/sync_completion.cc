#include "sim/monitors/sync_completion.h"

#include "absl/strings/str_cat.h"
#include "sim/device_books.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

std::optional<Violation> SyncCompletionMonitor::OnEvent(absl::Span<const Event> events,
                                                        const SimView& view) {
  const Event& e = events.back();
  if (e.kind != EventKind::kRegionEnd) return std::nullopt;
  const std::uint32_t region = e.As<payload::Region>().region;
  for (const KernelInFlight& k : view.device_books().in_flight()) {
    if (k.enqueued_by != e.actor || k.region != region) continue;
    return Unfinished(events, view, k);
  }
  return std::nullopt;
}

std::optional<Violation> SyncCompletionMonitor::Unfinished(absl::Span<const Event> events,
                                                           const SimView& view,
                                                           const KernelInFlight& k) {
  const Event& e = events.back();
  return ViolationAtLast(
      kName, events,
      absl::StrCat("run(region ", e.As<payload::Region>().region, ") returned on ",
                   Who(view, e.actor), " while its ", KernelLabel(k), ", enqueued at event ",
                   k.enqueue_index,
                   k.started ? absl::StrCat(", was still running (since event ", k.start_index, ")")
                             : absl::StrCat(", was still queued on stream ", k.stream)));
}

}  // namespace stackcheck::sim
