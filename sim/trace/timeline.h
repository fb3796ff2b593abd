// A text timeline of one execution: one row per event, one column per actor,
// so interleavings read top to bottom and who did what reads left to right.
//
//   #     time      | T0                      | T1                      | GPU
//   3     1.200us   |                         | alloc 0x200000+8MiB     |
#ifndef STACKCHECK_SIM_TRACE_TIMELINE_H_
#define STACKCHECK_SIM_TRACE_TIMELINE_H_

#include <string>

#include "absl/types/span.h"
#include "sim/event.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

struct TimelineOptions {
  // Characters per actor column; longer cell text is cut and ends in "~".
  int column_width = 30;
};

// `actor_names[i]` names actor i; actors without a name show as "#i". Events
// without an actor get a last column "-". When `violation` is given, its event
// is marked "!!" and the message follows the table.
std::string Timeline(absl::Span<const Event> events, absl::Span<const std::string> actor_names,
                     const Violation* violation = nullptr, const TimelineOptions& options = {});

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_TRACE_TIMELINE_H_
