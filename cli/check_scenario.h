// The case `stackcheck check` explores: a scenario from flags (the regions
// shape or a catalogue name) or from a scenario file (properties/
// replay_file.h), with the fault, device and simulator-mode flags on top.
//
//   --scenario regions   --threads x --regions, --warps per region,
//                        --user_alloc, --enter_data (see the flags' help)
//   --scenario NAME      a scenario of the catalogue (properties/scenarios.h)
//   --scenario_file PATH a scenario file
//   on any of them:      --oom_at, --reject_launch_at, --device_constructors,
//                        --device_destructors, --soft_limit, --capacity,
//                        --free_no_wait, --concurrent_callbacks; --abort and
//                        --mapped_vars on the first two
#ifndef STACKCHECK_CLI_CHECK_SCENARIO_H_
#define STACKCHECK_CLI_CHECK_SCENARIO_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/policies/registry.h"
#include "properties/case.h"
#include "properties/explore.h"

namespace stackcheck::cli {

struct CheckCase {
  properties::Case test_case;
  std::string name;  // "regions", a catalogue name or the file's path
  // The known-bug table's key for this scenario (properties/known_bugs.h),
  // or "" when flags or a file make it a scenario the table does not key.
  std::string key;
};

absl::StatusOr<CheckCase> CheckCaseFromFlags();

// A scenario file's step bound must let the scenario end: below the steps its
// first schedule (no preemption, no fault beyond its own) takes under
// `policy`, every execution would end in a "livelock" of the scenario's own
// length, which is bad input, not a finding. Bounds at or above a case's
// default (properties::CaseModes) are taken as given: a livelock there is one.
absl::Status CheckStepBoundLetsItEnd(const CheckCase& c, const PolicyInfo& policy);

// After the search: a livelock found under a step bound below the default
// whose schedule ends within the default is the bound's, not the scenario's:
// bad input naming the bound, as above.
absl::Status CheckLivelocksAreReal(const CheckCase& c, const PolicyInfo& policy,
                                   const properties::ExploreReport& report);

// Whether the scenario is the regions shape: neither --scenario NAME nor
// --scenario_file.
bool RegionsScenarioChosen();

// The flags that describe one scenario, which --enumerate replaces.
const std::vector<const char*>& SingleScenarioFlags();

// The device and mode flags given, applied to `c` (the enumeration's base).
absl::Status ApplyDeviceFlags(properties::Case& c);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_CHECK_SCENARIO_H_
