#include "real/side_by_side.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "properties/campaign.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/executor.h"
#include "sim/strategies/random_strategy.h"

namespace stackcheck::real {
namespace {

using properties::VerdictCell;

void Simulate(ScenarioOutcome& out, int executions,
              const std::vector<const properties::PropertyInfo*>& checked) {
  properties::Case c;
  c.scenario = out.scenario->scenario;
  for (int i = 0; i < executions; ++i) {
    absl::StatusOr<properties::Execution> e;
    if (i == 0) {
      // The least-preemptive execution first: the one a developer would
      // picture, and the one the hardware's free run most resembles.
      e = properties::Execute(c, *out.policy, checked);
    } else {
      sim::RandomStrategy::Options o;
      o.seed = static_cast<std::uint64_t>(i);
      o.max_executions = 1;
      sim::RandomStrategy random(o);
      e = properties::Execute(c, *out.policy, checked, &random);
    }
    if (!e.ok()) {
      out.sim_error = std::string(e.status().message());
      return;
    }
    ++out.sim_executions;
    if (e->violation.has_value()) {
      out.sim_violations.emplace(e->violation->property, e->violation->message);
    }
  }
}

void RunHardware(ScenarioOutcome& out, const SideBySideOptions& options) {
  for (int run = 0; run < options.hardware_repeat; ++run) {
    HardwareRunOptions o;
    o.watchdog = options.watchdog;
    if (run > 0) {
      o.jitter.probability = options.jitter_probability;
      o.jitter.max_delay = options.jitter_max_delay;
      o.jitter.seed = static_cast<std::uint64_t>(run);
    }
    absl::StatusOr<HardwareRunResult> r =
        RunOnHardware(out.scenario->scenario, *out.policy, o);
    if (!r.ok()) {
      HardwareRunResult failed;
      failed.setup_error = std::string(r.status().message());
      out.hardware_runs.push_back(std::move(failed));
      return;
    }
    std::vector<std::string> violated;
    for (const PropertyResult& p : r->properties) {
      if (p.verdict == HwVerdict::kViolated) {
        out.hw_violations.emplace(p.property, p.evidence);
        violated.push_back(p.property);
      }
    }
    if (options.progress) {
      // A campaign cut short by a time limit still leaves these lines.
      options.progress(absl::StrFormat(
          "cuda: %s / %s run %d: %s in %.2f s; violated: %s", out.policy->name,
          out.scenario->name, run, r->EndingText(), r->seconds,
          violated.empty() ? "none" : absl::StrJoin(violated, ", ")));
    }
    const bool setup_failed =
        r->ending == HardwareRunResult::Ending::kSetupFailed;
    out.hardware_runs.push_back(*std::move(r));
    if (setup_failed) return;  // it will not get better
  }
}

VerdictCell SimCell(const std::vector<ScenarioOutcome>& outcomes,
                    const PolicyInfo* policy, const std::string& property,
                    bool available) {
  VerdictCell cell;
  if (!available) {
    cell.state = VerdictCell::State::kUnavailable;
    cell.message = "the simulator has no checker for it";
    return cell;
  }
  cell.state = VerdictCell::State::kHolds;
  for (const ScenarioOutcome& o : outcomes) {
    if (o.policy != policy) continue;
    if (!o.sim_error.empty()) {
      cell.state = VerdictCell::State::kUnavailable;
      cell.message = absl::StrCat(o.scenario->name, ": ", o.sim_error);
      return cell;
    }
    cell.executions += o.sim_executions;
    auto it = o.sim_violations.find(property);
    if (it != o.sim_violations.end() &&
        cell.state != VerdictCell::State::kViolated) {
      cell.state = VerdictCell::State::kViolated;
      cell.size = o.scenario->name;
      cell.message = absl::StrCat(o.scenario->name, ": ", it->second);
    }
  }
  return cell;
}

VerdictCell CudaCell(const std::vector<ScenarioOutcome>& outcomes,
                     const PolicyInfo* policy, const std::string& property) {
  VerdictCell cell;  // kNotRun unless some run judged the property
  for (const ScenarioOutcome& o : outcomes) {
    if (o.policy != policy) continue;
    for (const HardwareRunResult& run : o.hardware_runs) {
      if (run.ending == HardwareRunResult::Ending::kSetupFailed ||
          run.properties.empty()) {
        cell.state = VerdictCell::State::kUnavailable;
        cell.message = run.setup_error;
        return cell;
      }
      const PropertyResult* p = run.Find(property);
      if (p == nullptr || p->verdict == HwVerdict::kNotObserved) continue;
      ++cell.executions;
      if (p->verdict == HwVerdict::kViolated) {
        if (cell.state != VerdictCell::State::kViolated) {
          cell.size = o.scenario->name;
          cell.message = absl::StrCat(o.scenario->name, ": ", p->evidence);
        }
        cell.state = VerdictCell::State::kViolated;
      } else if (cell.state == VerdictCell::State::kNotRun) {
        cell.state = VerdictCell::State::kHolds;
      }
    }
  }
  return cell;
}

std::string Names(const std::map<std::string, std::string>& m) {
  std::vector<std::string> names;
  for (const auto& [k, v] : m) names.push_back(k);
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

}  // namespace

absl::StatusOr<SideBySideResult> RunSideBySide(
    const SideBySideOptions& options) {
  std::vector<const PolicyInfo*> policies = options.policies;
  if (policies.empty()) {
    for (const PolicyInfo& p : AllPolicies()) policies.push_back(&p);
  }
  std::vector<const NamedScenario*> scenarios = options.scenarios;
  if (scenarios.empty()) {
    for (const NamedScenario& s : StandardHardwareScenarios()) {
      scenarios.push_back(&s);
    }
  }
  std::vector<std::pair<const properties::PropertyInfo*, std::string>>
      unavailable;
  const std::vector<const properties::PropertyInfo*> checked =
      properties::AvailableProperties(&unavailable);

  SideBySideResult result;
  // Hardware first, while this process has no simulator threads: each run
  // forks.
  for (const PolicyInfo* policy : policies) {
    for (const NamedScenario* scenario : scenarios) {
      ScenarioOutcome out;
      out.policy = policy;
      out.scenario = scenario;
      if (options.hardware) RunHardware(out, options);
      result.outcomes.push_back(std::move(out));
    }
  }
  for (ScenarioOutcome& out : result.outcomes) {
    if (options.progress) {
      options.progress(absl::StrCat("sim: ", out.policy->name, " / ",
                                    out.scenario->name));
    }
    Simulate(out, options.sim_executions, checked);
  }

  result.table.columns = {"sim"};
  if (options.hardware) result.table.columns.push_back("cuda");
  for (const PolicyInfo* policy : policies) {
    for (const properties::PropertyInfo& prop : properties::AllProperties()) {
      const std::string name(prop.name);
      bool available = true;
      for (const auto& [p, why] : unavailable) available &= p != &prop;
      properties::VerdictRow& row = result.table.Row(policy->name, name);
      row.cells[0] = SimCell(result.outcomes, policy, name, available);
      if (options.hardware) {
        row.cells[1] = CudaCell(result.outcomes, policy, name);
      }
    }
  }
  return result;
}

std::string FormatScenarioMatrix(const SideBySideResult& result,
                                 bool with_run_facts) {
  std::string out;
  // Scenario-major: outcomes were produced policy by policy.
  std::vector<const ScenarioOutcome*> order;
  for (const ScenarioOutcome& o : result.outcomes) order.push_back(&o);
  std::stable_sort(order.begin(), order.end(),
                   [](const ScenarioOutcome* a, const ScenarioOutcome* b) {
                     return a->scenario < b->scenario;
                   });
  const NamedScenario* current = nullptr;
  for (const ScenarioOutcome* op : order) {
    const ScenarioOutcome& o = *op;
    if (o.scenario != current) {
      current = o.scenario;
      absl::StrAppendFormat(&out, "\n%s: %s\n", current->name, current->aim);
    }
    absl::StrAppendFormat(&out, "  %-22s sim (%d runs): %s\n", o.policy->name,
                          o.sim_executions,
                          o.sim_error.empty() ? Names(o.sim_violations)
                                              : "error: " + o.sim_error);
    if (o.hardware_runs.empty()) continue;
    std::vector<std::string> endings;
    for (const HardwareRunResult& r : o.hardware_runs) {
      endings.push_back(absl::StrFormat("%s %.1fs", r.EndingText(), r.seconds));
    }
    // Compare on what the hardware can observe at all.
    std::set<std::string> sim_seen, hw_seen;
    for (const auto& [p, m] : o.sim_violations) {
      const properties::PropertyInfo* info = properties::FindProperty(p);
      if (info != nullptr && info->ObservableOn(properties::kCudaBackend)) {
        sim_seen.insert(p);
      }
    }
    for (const auto& [p, m] : o.hw_violations) {
      const properties::PropertyInfo* info = properties::FindProperty(p);
      if (info != nullptr && info->ObservableOn(properties::kCudaBackend)) {
        hw_seen.insert(p);
      }
    }
    absl::StrAppendFormat(&out, "  %-22s cuda (%s): %s%s\n", "",
                          absl::StrJoin(endings, ", "), Names(o.hw_violations),
                          sim_seen == hw_seen ? "" : "   <-- differs from sim");
    for (const auto& [p, evidence] : o.hw_violations) {
      absl::StrAppendFormat(&out, "  %-22s   %s: %s\n", "", p, evidence);
    }
    if (with_run_facts) {
      for (size_t i = 0; i < o.hardware_runs.size(); ++i) {
        for (const std::string& f : o.hardware_runs[i].facts) {
          absl::StrAppendFormat(&out, "  %-22s   run %d: %s\n", "", i, f);
        }
        for (const std::string& h : o.hardware_runs[i].hang_report) {
          absl::StrAppendFormat(&out, "  %-22s   run %d hang: %s\n", "", i, h);
        }
      }
    }
  }
  return out;
}

}  // namespace stackcheck::real
