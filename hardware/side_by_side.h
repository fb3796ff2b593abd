// The hardware campaign: every policy x the standard hardware scenarios, run
// on the GPU (hardware/hardware_runner) and searched on the simulator (the very
// same Scenario values: exhaustive DPOR where the tree is small enough, else
// random schedules; hardware/scenario_search.h), then compared backend with
// backend, property by property (hardware/backend_compare.h):
//  - every simulator counterexample of a scenario is steered onto the GPU
//    (hardware/steered_replay.h), unless its schedule is not steerable;
//  - a property the GPU violated but the scenario's search did not is
//    searched again with that property's monitor alone, so that other
//    properties' violations cannot hide it.
// The verdict table (a "sim" and a "cuda" column, each cell judged against
// the expected verdicts) is kept for the simulator-only run and for --json.
#ifndef STACKCHECK_HARDWARE_SIDE_BY_SIDE_H_
#define STACKCHECK_HARDWARE_SIDE_BY_SIDE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "hardware/backend_compare.h"
#include "hardware/hardware_runner.h"
#include "hardware/scenario_search.h"
#include "hardware/steered_replay.h"
#include "properties/scenarios.h"
#include "properties/verdict_table.h"

namespace stackcheck::hardware {

struct SideBySideOptions {
  std::vector<const PolicyInfo*> policies;                  // empty: all
  std::vector<const properties::NamedScenario*> scenarios;  // empty: all standard ones
  bool hardware = true;  // false: the simulator column only (runs anywhere)
  // Hardware runs per (policy, scenario): the first with free scheduling,
  // the others with random delays (seeded 1, 2, ...).
  int hardware_repeat = 3;
  double jitter_probability = 0.3;
  absl::Duration jitter_max_delay = absl::Milliseconds(2);
  absl::Duration watchdog = absl::Seconds(3);
  // The simulator's search per (policy, scenario): DPOR up to this many
  // executions; when that does not exhaust the tree, sim_executions random
  // schedules on top.
  std::uint64_t sim_dpor_budget = 20000;
  int sim_executions = 100;
  // GPU runs per simulator counterexample, steered towards its schedule;
  // 0: no steering.
  int steer_runs = 3;
  std::function<void(const std::string&)> progress;  // one line per step
  HardwareRunFn run_on_hardware;                     // empty: RunOnHardware
};

// A simulator counterexample on the GPU.
struct SteeredCounterexample {
  std::string token;  // the counterexample's replay token
  Steering steering;
  std::string error;  // steering or the runs could not be made
  std::vector<HardwareRunResult> runs;
  int reproduced = 0;  // runs violating the counterexample's property
};

// One property of one (policy, scenario): both sides and the judgement.
struct PropertyComparison {
  std::string property;
  SimSide sim;
  HwSide hw;  // empty without the hardware column
  RowComparison comparison;
};

struct ScenarioOutcome {
  const PolicyInfo* policy = nullptr;
  const properties::NamedScenario* scenario = nullptr;
  int sim_executions = 0;
  std::map<std::string, std::string> sim_violations;  // property -> message
  std::string sim_error;                              // executor failure
  std::vector<HardwareRunResult> hardware_runs;
  std::map<std::string, std::string> hw_violations;  // property -> evidence
  ScenarioSearch sim_search;
  // Property -> its search with its own monitor alone (see the file comment).
  std::map<std::string, ScenarioSearch> sim_targeted;
  // Counterexample property -> its steered GPU runs.
  std::map<std::string, SteeredCounterexample> steered;
  // Catalogue order; with the hardware column only.
  std::vector<PropertyComparison> comparisons;
};

struct SideBySideResult {
  properties::VerdictTable table;  // columns {"sim"} or {"sim", "cuda"}
  std::vector<ScenarioOutcome> outcomes;
};

absl::StatusOr<SideBySideResult> RunSideBySide(const SideBySideOptions& options);

// Whether any comparison disagrees (hardware/backend_compare.h's Disagrees).
bool BackendsDisagree(const SideBySideResult& result);

// The backend comparison as a table: one line per (policy, scenario,
// property) where either backend found a violation or the row disagrees,
// then how many rows hold on both, per status.
std::string FormatComparison(const SideBySideResult& result);

// Per scenario and policy: what each backend found, how much the simulator
// searched, and what the steered counterexamples did.
std::string FormatScenarioMatrix(const SideBySideResult& result, bool with_run_facts);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_SIDE_BY_SIDE_H_
