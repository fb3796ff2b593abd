// The order a simulated execution of a real program entered the plugin's and
// the driver's functions in, thread by thread: what the observe preload
// (hardware/observe) enforces on the real driver to steer the same program
// into the same interleaving (STACKCHECK_OBSERVE_STEER). One line per call,
// "T<k> <function>", T0 the main thread and T<k> the k-th thread the program
// created, as both sides number them.
#ifndef STACKCHECK_CLI_EXEC_STEERING_H_
#define STACKCHECK_CLI_EXEC_STEERING_H_

#include <string>
#include <vector>

namespace stackcheck::cli {

// From an execution's call log (program::ExecReport::calls): each call of
// the program into libgomp's offloading entry points ("T2
// GOMP_target_enter_exit_data(device -1)") and of libgomp into the plugin
// ("T2 GOMP_OFFLOAD_alloc(0, 287)") once, at its entry line, and each driver
// call ("T1 cuLaunchKernel(...) -> 0 ..."); fatal messages, futex waits and
// returns are left out.
std::vector<std::string> SteeringOrder(const std::vector<std::string>& calls);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_EXEC_STEERING_H_
