// `stackcheck check --enumerate`: DPOR (or the chosen exhaustive search) on
// every scenario of a scope (properties/scenario_space.h), one report line
// per scenario and the totals: scenarios, executions, whether each search
// was exhausted, and every violation's fingerprint with NEW / known and the
// replay token of the first scenario that met it.
//
// Budgets: --max_executions and --time_budget_s bound the whole enumeration,
// --scenario_executions each scenario; a scenario a budget cut short says
// `exhausted no`, and scenarios the overall budget left unrun are counted.
// FIXED? is not judged here: the known-bug table keys single scenarios.
#ifndef STACKCHECK_CLI_CHECK_ENUMERATE_H_
#define STACKCHECK_CLI_CHECK_ENUMERATE_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "cli/report_sink.h"
#include "properties/explore.h"

namespace stackcheck::cli {

// Whether --enumerate was given.
bool EnumerateRequested();

// The flags only --enumerate reads.
const std::vector<const char*>& EnumerateFlags();

// Runs the enumeration with `base` (policy, monitors, strategy and its
// parameters, determinism check) on each scenario; the overall budgets are
// `max_executions` (0: none) and `time_budget`. Writes to `out`; returns the
// exit status (kExitMismatch when a fingerprint is NEW or a search failed,
// kExitUsage for a bad bound).
int RunEnumeration(const properties::ExploreSpec& base, std::uint64_t max_executions,
                   absl::Duration time_budget, ReportSink& out);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_CHECK_ENUMERATE_H_
