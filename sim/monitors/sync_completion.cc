#include "sim/monitors/sync_completion.h"

#include "absl/strings/str_cat.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

std::optional<Violation> SyncCompletionMonitor::OnEvent(
    absl::Span<const Event> events, const SimView& view) {
  const Event& e = events.back();
  switch (e.kind) {
    case EventKind::kKernelEnqueue:
      kernels_.Enqueue(e, events.size() - 1);
      return std::nullopt;
    case EventKind::kKernelStart:
      if (KernelInFlight* k = kernels_.Find(e.a)) {
        k->started = true;
        k->start_index = events.size() - 1;
      }
      return std::nullopt;
    case EventKind::kKernelEnd:
    case EventKind::kKernelDropped:
      kernels_.Remove(e.a);
      return std::nullopt;
    case EventKind::kRegionEnd:
      for (const KernelInFlight& k : kernels_.in_flight()) {
        if (k.enqueued_by != e.actor || k.region != e.c) continue;
        return Unfinished(events, view, k);
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<Violation> SyncCompletionMonitor::Unfinished(absl::Span<const Event> events,
                                                           const SimView& view,
                                                           const KernelInFlight& k) {
  const Event& e = events.back();
  return ViolationAtLast(
      kName, events,
      absl::StrCat("run(region ", e.c, ") returned on ",
                   Who(view, e.actor), " while its ", KernelLabel(k),
                   ", enqueued at event ", k.enqueue_index,
                   k.started ? absl::StrCat(", was still running (since event ",
                                            k.start_index, ")")
                             : absl::StrCat(", was still queued on stream ",
                                            k.stream)));
}

}  // namespace stackcheck::sim
