// The order a simulated execution of a real program entered the plugin's and
// the driver's functions in, thread by thread: what the observe preload
// (hardware/observe) enforces on the real driver to steer the same program
// into the same interleaving (STACKCHECK_OBSERVE_STEER). One line per call,
// "T<k> <function>", T0 the main thread and T<k> the k-th thread the program
// created, as both sides number them.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_STEERING_H_
#define STACKCHECK_PROPERTIES_PROGRAM_STEERING_H_

#include <string>
#include <vector>

#include "sim/program/call_record.h"

namespace stackcheck::properties {

// From an execution's call log (program::ExecReport::calls): each call of
// the program into libgomp's offloading entry points and of libgomp into the
// plugin once, at its entry, and each driver call, of a program thread
// ("T<k>"); the driver's remarks, libgomp's messages, futex waits and the
// plugin's returns are left out.
std::vector<std::string> SteeringOrder(const std::vector<program::CallRecord>& calls);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_STEERING_H_
