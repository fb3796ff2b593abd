// Small helpers every monitor uses to build its Violation.
#ifndef STACKCHECK_SIM_MONITORS_VIOLATION_UTIL_H_
#define STACKCHECK_SIM_MONITORS_VIOLATION_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/device_books.h"  // kMaxIndexedId
#include "sim/event.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

// A violation caused by the newest event of `events`.
inline Violation ViolationAtLast(absl::string_view property, absl::Span<const Event> events,
                                 std::string message) {
  Violation v;
  v.property = std::string(property);
  v.message = std::move(message);
  v.event_index = events.empty() ? 0 : events.size() - 1;
  return v;
}

// The actor's name, or "nobody" for kNoActor.
inline std::string Who(const SimView& view, ActorId actor) {
  return actor == kNoActor ? std::string("nobody") : std::string(view.ActorName(actor));
}

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_VIOLATION_UTIL_H_
