// The single-host-thread bridge between a real program and the simulator.
//
// The simulator runs actors as fibers of the one OS thread that calls
// Simulator::Run, and Run returns only when the simulated process ends. A real
// program cannot live inside Run, so the bridge turns it inside out: Run is
// started on a fiber of its own, and the simulated main thread T0 is a loop
// that hands control back to the program and, when the program makes a driver
// call, runs that call against the SimDevice and hands control back again.
// The program's thread is suspended while the call runs; everything the call
// makes the engine do (GPU steps, the callback thread, monitors, the event
// log) happens on the simulator's fibers in between. When the program ends
// (the library's destructor), T0 returns from main, Run ends the simulated
// process, and the bridge writes the execution's report.
//
// Calls made from inside the simulation (a stream callback calling the driver)
// already run on a simulator fiber: they go to the device directly, and the
// device judges them as calls from callback context (SEM-09).
//
// One program thread at a time: calls from several OS threads are serialised
// by a mutex, and the simulator sees them all as T0.
#ifndef STACKCHECK_SIM_LIBCUDA_BRIDGE_H_
#define STACKCHECK_SIM_LIBCUDA_BRIDGE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/cu_result.h"
#include "core/device.h"

namespace stackcheck::libcuda {

// Starts the simulation on first use. Returns the call's result, or
// CUDA_ERROR_DEINITIALIZED once the simulated process has ended.
CuResult RunOnDevice(const std::function<CuResult(Device&)>& call);

// Whether the calling code runs inside the simulation (a callback).
bool InsideSimulation();

// Appends a driver call (`function` and what follows its name: arguments and
// result), or a remark of the driver's, to the call log: the execution's
// under exec, else the bridge's (written with the report).
void LogDriverCall(absl::string_view function, std::string detail);
void LogDriverNote(std::string text);

// Ends the simulated process and writes the report: the call log, the
// simulator's event log and the monitors' verdict, to the file named by
// STACKCHECK_LIBCUDA_LOG, and a one-line summary to stderr. A verdict that is
// a violation ends the process with status 86; if the simulated execution
// stops inside a driver call (a violation, a deadlock, the step bound), the
// report is written then, since that call has no outcome.
void FinishSimulation();

// The device capacity the simulator models, in bytes.
std::uint64_t DeviceCapacity();

}  // namespace stackcheck::libcuda

#endif  // STACKCHECK_SIM_LIBCUDA_BRIDGE_H_
