// FormatEvent with names filled in: driver calls ("driver-call cuMemFree -> 0
// SUCCESS") and, given the actors' names, the actors an event refers to
// ("mutex-block m0 owner T1"). //sim:event cannot name driver calls: DriverCall
// lives in the engine's target, which depends on //sim:event. The trace
// writers, downstream of both, can.
#ifndef STACKCHECK_SIM_TRACE_NAMED_FORMAT_H_
#define STACKCHECK_SIM_TRACE_NAMED_FORMAT_H_

#include <string>

#include "absl/types/span.h"
#include "sim/event.h"

namespace stackcheck::sim {

// `actor_names[i]` names actor i; actors beyond it print as "#i".
std::string FormatEventNamed(const Event& event, absl::Span<const std::string> actor_names = {});

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_TRACE_NAMED_FORMAT_H_
