#include "hardware/scenario_search.h"

#include <memory>
#include <set>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/scenario_runner.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/executor.h"
#include "sim/monitors/monitors.h"
#include "sim/simulator.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/random_strategy.h"

namespace stackcheck::hardware {
namespace {

// Passes answers through and keeps them as a Case schedule takes them:
// actor choices relative to the current actor, only at points with two or
// more candidates (the points SequenceStrategy is asked at), numbers as they
// are. Forwards ObservesEveryStep, which DPOR needs.
class CaseScheduleRecorder : public sim::Strategy {
 public:
  explicit CaseScheduleRecorder(sim::Strategy& inner) : inner_(inner) {}
  bool NewExecution() override {
    values_.clear();
    return inner_.NewExecution();
  }
  std::size_t NextActor(const sim::SchedulingPoint& point) override {
    const std::size_t chosen = inner_.NextActor(point);
    const std::size_t n = point.runnable.size();
    if (n > 1) {
      const std::size_t base =
          point.current >= 0 ? static_cast<std::size_t>(point.current) : 0;
      values_.push_back((chosen + n - base) % n);
    }
    return chosen;
  }
  std::uint64_t NextNumber(std::uint64_t n) override {
    const std::uint64_t chosen = inner_.NextNumber(n);
    values_.push_back(chosen);
    return chosen;
  }
  bool ObservesEveryStep() const override { return inner_.ObservesEveryStep(); }
  std::vector<std::uint64_t> Schedule() const {
    std::vector<std::uint64_t> v = values_;
    while (!v.empty() && v.back() == 0) v.pop_back();  // the defaults
    return v;
  }

 private:
  sim::Strategy& inner_;
  std::vector<std::uint64_t> values_;
};

std::vector<const properties::PropertyInfo*> Monitored(
    const ScenarioSearchOptions& options, std::string* error) {
  std::vector<const properties::PropertyInfo*> out;
  if (options.only_engine_properties) return out;
  if (options.properties.empty()) {
    for (const properties::PropertyInfo& p : properties::AllProperties()) {
      if (p.ObservableOn(properties::kSimBackend) &&
          p.checker == properties::Checker::kMonitor) {
        out.push_back(&p);
      }
    }
    return out;
  }
  for (const std::string& name : options.properties) {
    const properties::PropertyInfo* p = properties::FindProperty(name);
    if (p == nullptr || p->checker != properties::Checker::kMonitor) {
      *error = absl::StrFormat("'%s' is not a monitored property", name);
      return {};
    }
    out.push_back(p);
  }
  return out;
}

void Keep(ScenarioSearch& out, const properties::Case& c, const PolicyInfo& policy,
          const sim::Violation& v, std::vector<std::uint64_t> schedule) {
  if (out.counterexamples.count(v.property) > 0) return;
  Counterexample& cx = out.counterexamples[v.property];
  cx.message = v.message;
  cx.record.policy = policy.name;
  cx.record.property = v.property;
  cx.record.test_case = c;
  cx.record.test_case.schedule = std::move(schedule);
  cx.token = properties::EncodeReplayToken(cx.record);
}

void SearchDpor(ScenarioSearch& out, const properties::Case& c,
                const PolicyInfo& policy,
                const std::vector<const properties::PropertyInfo*>& monitored,
                std::uint64_t budget) {
  sim::MonitorParams params;
  params.soft_limit = c.scenario.soft_limit;
  std::vector<std::unique_ptr<sim::Monitor>> monitors;
  for (const properties::PropertyInfo* p : monitored) {
    absl::StatusOr<std::unique_ptr<sim::Monitor>> m =
        sim::MakeMonitor(p->monitor_name, params);
    if (!m.ok()) {
      out.error = std::string(m.status().message());
      return;
    }
    monitors.push_back(*std::move(m));
  }
  sim::Simulator simulator(properties::SimConfigFor(c), std::move(monitors));
  sim::DfsStrategy::Options o;
  o.max_executions = budget;
  sim::DfsStrategy dfs(o);
  CaseScheduleRecorder recorder(dfs);
  while (recorder.NewExecution()) {
    const sim::ExecutionResult& r = simulator.Run(
        recorder, [&](Device& device, Host& host, RuntimeObserver& observer) {
          RunScenario(c.scenario, device, host, observer, policy);
        });
    ++out.dfs_executions;
    // DPOR is sound only if the engine asked at every point but the last.
    if (dfs.ObservesEveryStep() && r.steps > dfs.points_seen() + 1) {
      out.error = "the engine skipped scheduling points that DPOR must see";
      return;
    }
    if (r.violation) Keep(out, c, policy, *r.violation, recorder.Schedule());
  }
  if (!dfs.status().ok()) {
    out.error = std::string(dfs.status().message());
    return;
  }
  out.exhausted = dfs.exhausted();
}

void SearchRandom(ScenarioSearch& out, const properties::Case& c,
                  const PolicyInfo& policy,
                  const std::vector<const properties::PropertyInfo*>& monitored,
                  int executions) {
  for (int i = 0; i < executions; ++i) {
    absl::StatusOr<properties::Execution> e;
    if (i == 0) {
      // The least-preemptive execution first: the one a developer would
      // picture, and the one the hardware's free run most resembles.
      e = properties::Execute(c, policy, monitored);
    } else {
      sim::RandomStrategy::Options o;
      o.seed = static_cast<std::uint64_t>(i);
      o.max_executions = 1;
      sim::RandomStrategy random(o);
      e = properties::Execute(c, policy, monitored, &random);
    }
    if (!e.ok()) {
      out.error = std::string(e.status().message());
      return;
    }
    ++out.random_executions;
    if (e->violation) Keep(out, c, policy, *e->violation, e->schedule);
  }
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
    out = absl::StrFormat("%d DPOR + %d random executions", dfs_executions,
                          random_executions);
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
    absl::StrAppend(&out, " (executions stopped early by ",
                    absl::StrJoin(others, ", "), ")");
  }
  return out;
}

ScenarioSearch SearchScenario(const Scenario& scenario, const PolicyInfo& policy,
                              const ScenarioSearchOptions& options) {
  ScenarioSearch out;
  const std::vector<const properties::PropertyInfo*> monitored =
      Monitored(options, &out.error);
  if (!out.error.empty()) return out;
  properties::Case c;
  c.scenario = scenario;
  if (options.dfs_budget > 0) {
    SearchDpor(out, c, policy, monitored, options.dfs_budget);
    if (!out.error.empty() || out.exhausted) return out;
  }
  SearchRandom(out, c, policy, monitored, options.random_executions);
  return out;
}

}  // namespace stackcheck::hardware
