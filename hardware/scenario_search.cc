#include "hardware/scenario_search.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "properties/case.h"
#include "properties/explore.h"

namespace stackcheck::hardware {
namespace {

// The monitors a search runs: the named properties, or every simulator
// monitor (accepted deviations included: the hardware column judges them too).
properties::MonitorSelection Monitors(const ScenarioSearchOptions& options) {
  if (options.only_engine_properties) {
    return {properties::MonitorSelection::kNone, {}};
  }
  if (!options.properties.empty()) return properties::MonitorSelection::Named(options.properties);
  return {properties::MonitorSelection::kEvery, {}};
}

void Keep(ScenarioSearch& out, const properties::Case& c, const PolicyInfo& policy,
          const properties::Finding& f) {
  if (out.counterexamples.count(f.violation.property) > 0) return;
  Counterexample& cx = out.counterexamples[f.violation.property];
  cx.message = f.violation.message;
  cx.record.policy = policy.name;
  cx.record.property = f.violation.property;
  cx.record.test_case = c;
  cx.record.test_case.schedule = f.schedule;
  cx.token = f.token;
}

// One search of the case; its findings kept, its error (if any) noted.
properties::ExploreReport Search(ScenarioSearch& out, const properties::Case& c,
                                 const PolicyInfo& policy,
                                 const properties::MonitorSelection& monitors,
                                 const std::string& strategy, std::uint64_t seed,
                                 std::uint64_t budget) {
  properties::ExploreSpec spec;
  spec.test_case = c;
  spec.policy = &policy;
  spec.monitors = monitors;
  spec.strategy = strategy;
  spec.strategy_params.seed = seed;
  spec.max_executions = budget;
  spec.stop = properties::StopRule::kNever;
  properties::ExploreReport r = properties::Explore(spec);
  if (!r.status.ok()) {
    out.error = std::string(r.status.message());
    return r;
  }
  for (const properties::Finding& f : r.findings) Keep(out, c, policy, f);
  return r;
}

}  // namespace

bool ScenarioSearch::ExhaustiveFor(const std::string& property) const {
  if (!error.empty() || !exhausted) return false;
  for (const auto& [p, cx] : counterexamples) {
    if (p != property) return false;
  }
  return true;
}

std::string ScenarioSearch::DescribeFor(const std::string& property) const {
  if (!error.empty()) return absl::StrCat("search failed: ", error);
  if (ExhaustiveFor(property)) {
    return absl::StrFormat("exhaustive DPOR, %d executions", dfs_executions);
  }
  std::string out;
  if (dfs_executions > 0 && random_executions > 0) {
    out = absl::StrFormat("%d DPOR + %d random executions", dfs_executions, random_executions);
  } else if (dfs_executions > 0) {
    out = absl::StrFormat("%d DPOR executions", dfs_executions);
  } else {
    out = absl::StrFormat("%d random executions", random_executions);
  }
  absl::StrAppend(&out, ", not exhaustive");
  std::vector<std::string> others;
  for (const auto& [p, cx] : counterexamples) {
    if (p != property) others.push_back(p);
  }
  if (!others.empty()) {
    absl::StrAppend(&out, " (executions stopped early by ", absl::StrJoin(others, ", "), ")");
  }
  return out;
}

ScenarioSearch SearchScenario(const Scenario& scenario, const PolicyInfo& policy,
                              const ScenarioSearchOptions& options) {
  ScenarioSearch out;
  const properties::MonitorSelection monitors = Monitors(options);
  properties::Case c;
  c.scenario = scenario;
  if (options.dfs_budget > 0) {
    const properties::ExploreReport r =
        Search(out, c, policy, monitors, "dfs", 0, options.dfs_budget);
    out.dfs_executions = r.executions;
    out.exhausted = r.exhausted;
    if (!out.error.empty() || out.exhausted) return out;
  }
  // Random schedules on top: the least-preemptive execution first (the one a
  // developer would picture, and the one the hardware's free run most
  // resembles), then one random schedule per seed 1, 2, ...
  for (int i = 0; i < options.random_executions && out.error.empty(); ++i) {
    const properties::ExploreReport r =
        i == 0 ? Search(out, c, policy, monitors, "sequence", 0, 1)
               : Search(out, c, policy, monitors, "random", static_cast<std::uint64_t>(i), 1);
    out.random_executions += r.executions;
  }
  return out;
}

}  // namespace stackcheck::hardware
