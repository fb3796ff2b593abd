// What the simulated process's main thread does with a Scenario: the one
// host program that both the simulator and the hardware runner execute.
#ifndef STACKCHECK_CORE_SCENARIO_RUNNER_H_
#define STACKCHECK_CORE_SCENARIO_RUNNER_H_

#include "core/device.h"
#include "core/host.h"
#include "core/observer.h"
#include "core/policies/registry.h"
#include "core/scenario.h"

namespace stackcheck {

// Opens the device, loads the image (with constructors/destructors as the
// FaultPlan says), spawns one host thread per ThreadProgram - every program,
// thread 0's included, runs on a spawned thread, so the main thread only
// opens, joins and exits - and joins them all. Each program runs its ops in
// order: kRun -> Runtime::Run; kDeviceAlloc / kEnterData -> DeviceAlloc /
// EnterData into the thread's slot (a slot still holding a pointer is
// released first, so programs never leak by overwriting); kDeviceFree /
// kExitData -> release the slot (empty: no-op); kUpdate -> Update of a mapped
// slot; at the end the thread releases what its slots still hold. Then, if close_at_end,
// exit(0) (Host::ExitOwningNothing: main's locals are gone by then): the exit
// handlers close the device, as in libgomp. Otherwise it returns with the
// device still open.
//
// Any fatal error ends the process through Host::Exit from the thread that
// hit it; this function then never returns.
void RunScenario(const Scenario& scenario, Device& device, Host& host, RuntimeObserver& observer,
                 const PolicyInfo& policy);

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_SCENARIO_RUNNER_H_
