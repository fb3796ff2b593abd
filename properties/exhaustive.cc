#include "properties/exhaustive.h"

#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/scenario_runner.h"
#include "properties/catalogue.h"
#include "properties/executor.h"
#include "properties/expected_verdicts.h"
#include "sim/monitors/monitors.h"
#include "sim/simulator.h"

namespace stackcheck::properties {

Scenario RegionsScenario(int threads, int regions, bool abort) {
  Scenario s;
  RegionId next = 1;
  for (int t = 0; t < threads; ++t) {
    ThreadProgram program;
    for (int r = 0; r < regions; ++r) {
      HostOp op;
      op.region.id = next++;
      op.region.teams = static_cast<std::uint32_t>(1 + (r + t) % 2);  // warp slots
      op.region.warps = 1;
      program.ops.push_back(op);
    }
    s.threads.push_back(program);
  }
  if (abort && !s.threads.empty() && !s.threads[0].ops.empty()) {
    s.threads[0].ops.back().region.aborts = true;
  }
  return s;
}

std::vector<std::string> MonitoredProperties(const PolicyInfo& policy) {
  std::vector<std::string> names;
  for (const PropertyInfo& p : AllProperties()) {
    if (!p.ObservableOn(kSimBackend) || p.checker != Checker::kMonitor ||
        ExpectedVerdict(policy.name, p.name) == Expectation::kAcceptedDeviation) {
      continue;
    }
    names.emplace_back(p.name);
  }
  return names;
}

namespace {

absl::StatusOr<std::vector<std::unique_ptr<sim::Monitor>>> MonitorsFor(
    const Case& c, const PolicyInfo& policy, const ExhaustiveOptions& options) {
  std::vector<std::unique_ptr<sim::Monitor>> monitors;
  if (options.only_engine_properties) return monitors;
  const std::vector<std::string> names =
      options.properties.empty() ? MonitoredProperties(policy) : options.properties;
  sim::MonitorParams params;
  params.soft_limit = c.scenario.soft_limit;
  for (const std::string& name : names) {
    const PropertyInfo* p = FindProperty(name);
    if (p == nullptr || p->checker != Checker::kMonitor) {
      return absl::InvalidArgumentError(
          absl::StrFormat("'%s' is not a monitored property", name));
    }
    absl::StatusOr<std::unique_ptr<sim::Monitor>> m =
        sim::MakeMonitor(p->monitor_name, params);
    if (!m.ok()) return m.status();
    monitors.push_back(*std::move(m));
  }
  return monitors;
}

}  // namespace

ExhaustiveResult ExploreExhaustively(const Case& c, const PolicyInfo& policy,
                                     const ExhaustiveOptions& options) {
  ExhaustiveResult out;
  absl::StatusOr<std::vector<std::unique_ptr<sim::Monitor>>> monitors =
      MonitorsFor(c, policy, options);
  if (!monitors.ok()) {
    out.status = monitors.status();
    return out;
  }
  sim::Simulator simulator(SimConfigFor(c), *std::move(monitors));
  sim::DfsStrategy dfs(options.dfs);
  out.reduction = dfs.reduction();
  const auto start = std::chrono::steady_clock::now();
  while (dfs.NewExecution()) {
    const sim::ExecutionResult& r = simulator.Run(
        dfs, [&](Device& device, Host& host, RuntimeObserver& observer) {
          RunScenario(c.scenario, device, host, observer, policy);
        });
    ++out.executions;
    if (options.on_execution) options.on_execution(r);
    // An engine that honours ObservesEveryStep asks at every point but the
    // last (the one that finds nobody runnable); DPOR is unsound otherwise.
    if (dfs.ObservesEveryStep() && r.steps > dfs.points_seen() + 1) {
      out.status = absl::FailedPreconditionError(
          "the engine skipped scheduling points that DPOR must see");
      break;
    }
    if (r.violation) {
      out.violated.insert(r.violation->property);
      if (out.violating_executions++ == 0) out.first_violation_at = out.executions;
      if (options.stop_at_first_violation) break;
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                    .count();
  if (out.status.ok()) out.status = dfs.status();
  out.exhausted = dfs.exhausted() && out.status.ok();
  return out;
}

}  // namespace stackcheck::properties
