// Exhaustive exploration of one Case's schedules with DfsStrategy, the loop
// behind `stackcheck bench dfs` and the reduction-soundness test.
//
// Unlike `check`, which stops at the first violation, this can go on past
// violating executions to the end of the tree, so two searches (reduced and
// plain) of the same case can be compared by their execution counts and by
// the properties each found violated.
//
// Verdicts under reduction: an execution stops at its first violation, so a
// reduced search that found none has explored what a search that never stops
// would have (the claim in sim/strategies/dfs_strategy.h holds for it). When
// violations exist the reduced search finds at least one, but which
// properties it reports can depend on which equivalent execution it ran;
// comparing property by property means one search per property, each with
// only that property's monitor (ExhaustiveOptions::monitors).
#ifndef STACKCHECK_PROPERTIES_EXHAUSTIVE_H_
#define STACKCHECK_PROPERTIES_EXHAUSTIVE_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "properties/case.h"
#include "sim/simulator.h"
#include "sim/strategies/dfs_strategy.h"

namespace stackcheck::properties {

// The scenario `check` and `bench dfs` explore: `threads` host threads with
// `regions` regions each, of 1 and 2 warp slots alternately (so the cached
// block must grow); with `abort`, thread 0's last region aborts (a trap).
Scenario RegionsScenario(int threads, int regions, bool abort);

// The monitor properties the simulator checks for `policy`: every one it can
// observe, except deviations the policy declares it accepts.
std::vector<std::string> MonitoredProperties(const PolicyInfo& policy);

struct ExhaustiveOptions {
  sim::DfsStrategy::Options dfs;
  // Property names whose monitors run; empty: MonitoredProperties(policy).
  // The engine's own properties (no-deadlock, progress) are always checked.
  std::vector<std::string> properties;
  bool only_engine_properties = false;  // no monitors at all
  bool stop_at_first_violation = false;
  // Called after every execution, e.g. to collect what each one observed
  // (tests/properties/trace_equivalence_test.cc).
  std::function<void(const sim::ExecutionResult&)> on_execution;
};

struct ExhaustiveResult {
  std::uint64_t executions = 0;
  bool exhausted = false;  // the tree ran out, not the budget
  double seconds = 0;
  // Each violating execution's (first) violated property.
  std::set<std::string> violated;
  std::uint64_t violating_executions = 0;
  std::uint64_t first_violation_at = 0;  // 1-based; 0: none
  std::string reduction;                 // DfsStrategy::reduction()
  // Not OK: the engine diverged, or skipped points DPOR must see.
  absl::Status status;
};

ExhaustiveResult ExploreExhaustively(const Case& c, const PolicyInfo& policy,
                                     const ExhaustiveOptions& options);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_EXHAUSTIVE_H_
