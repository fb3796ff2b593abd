// The simulator's search of one hardware scenario under one policy, for the
// "sim" column of `stackcheck validate`: exhaustive DPOR first, within an
// execution budget; when the budget runs out before the tree does, random
// schedules on top, and the claim is then a count, not a proof. Each violated
// property keeps its first counterexample as a replay record, so that it can
// be replayed on the simulator (`stackcheck replay`) and steered onto the GPU
// (hardware/steered_replay.h).
//
// What "exhaustive for a property" means: the DPOR tree ran out, and no
// execution stopped at a violation of another property first (an execution
// ends at its first violation, so one that stopped early says nothing about
// what would have followed). Only then does "no violation of P" cover every
// schedule of the scenario (sim/strategies/dfs_strategy.h).
#ifndef STACKCHECK_HARDWARE_SCENARIO_SEARCH_H_
#define STACKCHECK_HARDWARE_SCENARIO_SEARCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/policies/registry.h"
#include "core/scenario.h"
#include "properties/replay_file.h"

namespace stackcheck::hardware {

struct ScenarioSearchOptions {
  // DPOR executions before giving up on exhausting the tree; 0: no DPOR.
  std::uint64_t dfs_budget = 20000;
  // Random schedules added when DPOR did not exhaust the tree (the first of
  // them unpreempted).
  int random_executions = 100;
  // Monitored properties; empty: every monitor the simulator has. The
  // engine's own properties (no-deadlock, progress) are always checked.
  std::vector<std::string> properties;
  bool only_engine_properties = false;  // no monitors at all
};

struct Counterexample {
  std::string message;              // the violation, one line
  properties::ReplayRecord record;  // scenario, schedule, policy, property
  std::string token;                // EncodeReplayToken(record)
};

struct ScenarioSearch {
  std::uint64_t dfs_executions = 0;
  bool exhausted = false;  // the DPOR tree ran out within the budget
  std::uint64_t random_executions = 0;
  // The first counterexample per violated property.
  std::map<std::string, Counterexample> counterexamples;
  std::string error;  // the engine or a monitor failed; the search is void

  std::uint64_t executions() const { return dfs_executions + random_executions; }
  // See the header comment.
  bool ExhaustiveFor(const std::string& property) const;
  // "exhaustive DPOR, 412 executions" or "2000 DPOR + 100 random
  // executions, not exhaustive" (with ", stopped early by: P" when other
  // properties' violations cut executions short).
  std::string DescribeFor(const std::string& property) const;
};

ScenarioSearch SearchScenario(const Scenario& scenario, const PolicyInfo& policy,
                              const ScenarioSearchOptions& options);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_SCENARIO_SEARCH_H_
