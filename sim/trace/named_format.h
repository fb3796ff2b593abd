// FormatEvent with driver calls named ("driver-call cuMemFree -> 0 SUCCESS").
// //sim:event cannot name them: DriverApi lives in the engine's target, which
// depends on //sim:event. The trace writers, downstream of both, can.
#ifndef STACKCHECK_SIM_TRACE_NAMED_FORMAT_H_
#define STACKCHECK_SIM_TRACE_NAMED_FORMAT_H_

#include <string>

#include "sim/event.h"

namespace stackcheck::sim {

std::string FormatEventNamed(const Event& event);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_TRACE_NAMED_FORMAT_H_
