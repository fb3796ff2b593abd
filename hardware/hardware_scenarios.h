// The scenarios the hardware campaign runs for every policy. Each one aims at
// one hazard of libgomp-stack-cache.md's table and is small enough to run in
// well under a second on a GPU, so a whole campaign fits a short device lease.
// The simulator runs the very same values for the side-by-side column.
#ifndef STACKCHECK_HARDWARE_HARDWARE_SCENARIOS_H_
#define STACKCHECK_HARDWARE_HARDWARE_SCENARIOS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/scenario.h"

namespace stackcheck::hardware {

struct NamedScenario {
  std::string name;
  std::string aim;  // the hazard it provokes, one line
  Scenario scenario;
};

const std::vector<NamedScenario>& StandardHardwareScenarios();
// nullptr for an unknown name.
const NamedScenario* FindHardwareScenario(absl::string_view name);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_HARDWARE_SCENARIOS_H_
