#include "sim/monitors/abort_attribution.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/observer.h"
#include "sim/device_books.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/kernel_table.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
void AbortAttributionMonitor::Reset() {
  aborts_.clear();
  judged_ = false;
  poisoned_ = false;
  end_judged_ = false;
}

std::optional<Violation> AbortAttributionMonitor::OnEvent(absl::Span<const Event> events,
                                                          const SimView& view) {
  const Event& e = events.back();
  switch (e.kind) {
    case EventKind::kKernelEnd: {
      // Only a kernel that fails in a healthy context aborted; kernels that
      // were already running when the context was poisoned end with its error
      // too, but did nothing wrong (SEM-05).
      const auto end = e.As<payload::KernelEnd>();
      if (end.result != CuResult::kSuccess && !poisoned_) {
        const KernelInFlight* k = view.device_books().just_ended();
        aborts_.push_back(
            Abort{end.kernel.kernel, k != nullptr ? k->region : 0, end.result, events.size() - 1});
      }
      return std::nullopt;
    }
    case EventKind::kStickyError:
      poisoned_ = true;
      return std::nullopt;
    case EventKind::kFatalReported:
    case EventKind::kErrorReported:
      if (aborts_.empty()) return std::nullopt;  // not about an abort
      return Judge(events, view);
    case EventKind::kExitHandlersDone:
    case EventKind::kProcessExit:
      if (end_judged_) return std::nullopt;
      end_judged_ = true;
      return Unreported(events);
    default:
      return std::nullopt;
  }
}

std::optional<Violation> AbortAttributionMonitor::Judge(absl::Span<const Event> events,
                                                        const SimView& view) {
  const Event& e = events.back();
  const auto report = e.As<payload::Reported>();
  // A message with another code (say, out of memory) is about something
  // else.
  const Abort& first = aborts_.front();
  if (judged_ || report.code != first.code) return std::nullopt;
  judged_ = true;
  const absl::string_view text = view.MessageText(report.message);
  if (absl::StrContains(text, kAbortHint)) {
    // A fatal error that names a region must name the one that aborted (an
    // error message names none).
    if (e.kind != EventKind::kFatalReported || report.region == kNoRegion ||
        report.region == first.region) {
      return std::nullopt;
    }
    return ViolationAtLast(
        kName, events,
        absl::StrCat(KernelLabel(first.kernel, first.region), " aborted at event ", first.index,
                     ", but the fatal error from ", Who(view, e.actor), " blames region ",
                     report.region));
  }
  return ViolationAtLast(
      kName, events,
      absl::StrCat(KernelLabel(first.kernel, first.region), " aborted at event ", first.index,
                   ", but the first message the user sees, from ", Who(view, e.actor), ", is \"",
                   text, "\", which does not say that a kernel aborted"));
}

std::optional<Violation> AbortAttributionMonitor::OnQuiescence(absl::Span<const Event> events,
                                                               const SimView& /*view*/,
                                                               bool all_finished) {
  // A stuck execution is the engine's deadlock to report; the abort might
  // still have been reported had it moved on.
  if (!all_finished || end_judged_) return std::nullopt;
  return Unreported(events);
}

std::optional<Violation> AbortAttributionMonitor::Unreported(absl::Span<const Event> events) const {
  if (aborts_.empty() || judged_) return std::nullopt;
  const Abort& first = aborts_.front();
  return ViolationAtLast(
      kName, events,
      absl::StrCat(KernelLabel(first.kernel, first.region), " aborted at event ", first.index,
                   " with ", FormatResult(first.code),
                   ", but the execution ended without a message about it (the abort "
                   "was lost)"));
}

}  // namespace stackcheck::sim
