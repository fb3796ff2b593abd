#include "sim/monitors/driver_call_in_callback.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sim/driver_api.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

void DriverCallInCallbackMonitor::Reset() {
  for (CallbackContext& c : context_of_actor_) c = CallbackContext{};
}

std::optional<Violation> DriverCallInCallbackMonitor::OnEvent(absl::Span<const Event> events,
                                                              const SimView& view) {
  const Event& e = events.back();
  switch (e.kind) {
    case EventKind::kCallbackStart:
    case EventKind::kHostFnStart: {
      if (e.actor >= kMaxIndexedId) return std::nullopt;
      if (e.actor >= context_of_actor_.size()) {
        context_of_actor_.resize(e.actor + 1);
      }
      const auto work = e.As<payload::StreamWork>();
      context_of_actor_[e.actor] = CallbackContext{true, e.kind == EventKind::kHostFnStart,
                                                   work.stream, work.id, events.size() - 1};
      return std::nullopt;
    }
    case EventKind::kCallbackEnd:
    case EventKind::kHostFnEnd:
      if (e.actor < context_of_actor_.size()) {
        context_of_actor_[e.actor].active = false;
      }
      return std::nullopt;
    case EventKind::kDriverCall:
    case EventKind::kDriverCallBlock: {
      const bool bracketed =
          e.actor < context_of_actor_.size() && context_of_actor_[e.actor].active;
      const bool marked = (e.As<payload::Call>().flags & kCallFromCallback) != 0;
      if (!bracketed && !marked) return std::nullopt;
      return Complain(events, view, bracketed);
    }
    default:
      return std::nullopt;
  }
}

std::optional<Violation> DriverCallInCallbackMonitor::Complain(absl::Span<const Event> events,
                                                               const SimView& view,
                                                               bool bracketed) const {
  const Event& e = events.back();
  std::string where = "a callback";
  if (bracketed) {
    const CallbackContext& c = context_of_actor_[e.actor];
    where = absl::StrCat(c.host_fn ? "host function " : "callback ", c.id, " of stream ", c.stream,
                         " (started at event ", c.start_index, ")");
  }
  const auto driver_call = e.As<payload::Call>();
  const std::string call(DriverCallName(driver_call.call));
  // A kDriverCallBlock has no result yet.
  return ViolationAtLast(kName, events,
                         e.kind == EventKind::kDriverCall
                             ? absl::StrCat(Who(view, e.actor), " called ", call, " from ", where,
                                            "; it returned ", FormatResult(driver_call.result))
                             : absl::StrCat(Who(view, e.actor), " called ", call, " from ", where,
                                            " and the call blocked"));
}

}  // namespace stackcheck::sim
