// One execution as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev)
// and chrome://tracing load: the host threads and the driver's callback
// thread as one process, the GPU's streams as another.
//
// - kernels: complete slices on their stream's track, from start to end;
// - callbacks and host functions: slices on the callback thread's track;
// - run(region): a slice on the calling thread; a blocking driver call (one
//   that waited) a slice, other driver calls instants;
// - mutex holds: async slices keyed by the mutex, so an unlock by another
//   thread (V1a) still closes the span; a wait for a mutex is a slice;
// - memory, sticky errors, fatal reports, probes: instants;
// - the violation, if any: a global instant marker.
// Slices still open when the trace ends are closed at its last timestamp and
// flagged "unfinished". Timestamps are virtual nanoseconds.
#ifndef STACKCHECK_SIM_TRACE_CHROME_TRACE_H_
#define STACKCHECK_SIM_TRACE_CHROME_TRACE_H_

#include <string>

#include "absl/types/span.h"
#include "sim/event.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

// {"traceEvents":[...],"displayTimeUnit":"ns"}
std::string ChromeTraceJson(absl::Span<const Event> events,
                            absl::Span<const std::string> actor_names,
                            const Violation* violation = nullptr);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_TRACE_CHROME_TRACE_H_
