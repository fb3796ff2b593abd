#include "sim/monitors/no_crash.h"

#include <csignal>
#include <cstring>

#include "absl/strings/str_format.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

std::optional<Violation> NoCrashMonitor::OnEvent(absl::Span<const Event> events,
                                                 const SimView& view) {
  const Event& e = events.back();
  if (e.kind != EventKind::kProcessKilled) return std::nullopt;
  const int signal = e.As<payload::Killed>().signal;
  const char* name = sigabbrev_np(signal);
  return ViolationAtLast(kName, events,
                         absl::StrFormat("the process died of SIG%s on %s",
                                         name != nullptr ? name : "?", Who(view, e.actor)));
}

}  // namespace stackcheck::sim
