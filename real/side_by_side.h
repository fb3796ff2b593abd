// The hardware campaign: every policy x the standard hardware scenarios, run
// on the GPU (real/hardware_runner) and on the simulator (random schedules
// over the very same Scenario values), merged into the verdict table with a
// "sim" and a "cuda" column, each cell judged against the expected verdicts.
#ifndef STACKCHECK_REAL_SIDE_BY_SIDE_H_
#define STACKCHECK_REAL_SIDE_BY_SIDE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "properties/verdict_table.h"
#include "real/hardware_runner.h"
#include "real/hardware_scenarios.h"

namespace stackcheck::real {

struct SideBySideOptions {
  std::vector<const PolicyInfo*> policies;         // empty: all
  std::vector<const NamedScenario*> scenarios;     // empty: all standard ones
  bool hardware = true;  // false: the simulator column only (runs anywhere)
  // Hardware runs per (policy, scenario): the first with free scheduling,
  // the others with random delays (seeded 1, 2, ...).
  int hardware_repeat = 3;
  double jitter_probability = 0.3;
  absl::Duration jitter_max_delay = absl::Milliseconds(2);
  absl::Duration watchdog = absl::Seconds(3);
  // Simulator executions per (policy, scenario), random schedules.
  int sim_executions = 100;
  std::function<void(const std::string&)> progress;  // one line per step
};

struct ScenarioOutcome {
  const PolicyInfo* policy = nullptr;
  const NamedScenario* scenario = nullptr;
  int sim_executions = 0;
  std::map<std::string, std::string> sim_violations;  // property -> message
  std::string sim_error;                               // executor failure
  std::vector<HardwareRunResult> hardware_runs;
  std::map<std::string, std::string> hw_violations;   // property -> evidence
};

struct SideBySideResult {
  properties::VerdictTable table;  // columns {"sim"} or {"sim", "cuda"}
  std::vector<ScenarioOutcome> outcomes;
};

absl::StatusOr<SideBySideResult> RunSideBySide(const SideBySideOptions& options);

// Per scenario and policy: what each backend found, and whether they agree.
std::string FormatScenarioMatrix(const SideBySideResult& result,
                                 bool with_run_facts);

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_SIDE_BY_SIDE_H_
