// The scenario catalogue: every named scenario a command or test runs, one
// row each, looked up by name everywhere (`check --scenario`, `bench sim`,
// `validate`, the hardware runs). A new scenario is one row in scenarios.cc.
//
// Scenarios are what a program does; how the simulator or the GPU runs them
// (device modes, schedules) is the Case's and the backend's business.
#ifndef STACKCHECK_PROPERTIES_SCENARIOS_H_
#define STACKCHECK_PROPERTIES_SCENARIOS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/scenario.h"

namespace stackcheck::properties {

struct NamedScenario {
  std::string name;
  std::string aim;  // what it exercises or provokes, one line
  Scenario scenario;
  bool on_hardware = false;  // one of the scenarios `validate` runs on the GPU
};

// Every named scenario, in a stable order.
const std::vector<NamedScenario>& AllScenarios();
// The ones `validate` runs on the GPU (and beside it on the simulator), in
// catalogue order.
const std::vector<NamedScenario>& HardwareScenarios();
// nullptr for a name that is not a hardware scenario.
const NamedScenario* FindHardwareScenario(absl::string_view name);
// nullptr for an unknown name.
const NamedScenario* FindScenario(absl::string_view name);
// "standard, peer, ..."
std::string ScenarioNames();

// The parameterised scenario `check` explores: `threads` host threads with
// `regions` regions each, of 1 and 2 warp slots alternately (so the cached
// block must grow), each mapping `mapped_vars` variables; with `abort`,
// thread 0's last region aborts (a trap). The device is closed at exit.
Scenario RegionsScenario(int threads, int regions, bool abort, int mapped_vars = 0);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SCENARIOS_H_
