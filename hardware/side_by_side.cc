#include "hardware/side_by_side.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "properties/campaign.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/explore.h"

namespace stackcheck::hardware {
namespace {

using properties::VerdictCell;

// The hardware reports a hang under both no-deadlock and progress (the
// watchdog cannot tell a deadlock from a livelock); the simulator's engine
// tells them apart. For comparison with the GPU they are one observation.
std::vector<std::string> HardwareAliases(const std::string& property) {
  if (property == "no-deadlock" || property == "progress") {
    return {"no-deadlock", "progress"};
  }
  return {property};
}

void Simulate(ScenarioOutcome& out, const SideBySideOptions& options,
              const std::vector<std::string>& monitored) {
  ScenarioSearchOptions o;
  o.dfs_budget = options.sim_dpor_budget;
  o.random_executions = options.sim_executions;
  o.properties = monitored;
  o.only_engine_properties = monitored.empty();
  out.sim_search = SearchScenario(out.scenario->scenario, *out.policy, o);
  out.sim_error = out.sim_search.error;
  out.sim_executions = static_cast<int>(out.sim_search.executions());
  for (const auto& [p, cx] : out.sim_search.counterexamples) {
    out.sim_violations.emplace(p, cx.message);
  }
}

// The counterexample the simulator found for `property` (or, for a hang,
// for its alias), from the scenario's search or the property's own; nullptr
// if none.
const Counterexample* FindCounterexample(const ScenarioOutcome& out, const std::string& property,
                                         bool with_aliases) {
  const std::vector<std::string> names =
      with_aliases ? HardwareAliases(property) : std::vector<std::string>{property};
  for (const std::string& name : names) {
    auto it = out.sim_search.counterexamples.find(name);
    if (it != out.sim_search.counterexamples.end()) return &it->second;
    auto t = out.sim_targeted.find(property);
    if (t != out.sim_targeted.end()) {
      auto jt = t->second.counterexamples.find(name);
      if (jt != t->second.counterexamples.end()) return &jt->second;
    }
  }
  return nullptr;
}

// A property the GPU violated that the scenario's search neither found nor
// ruled out for every schedule: searched again with its monitor alone.
void SimulateTargeted(ScenarioOutcome& out, const SideBySideOptions& options,
                      const std::vector<std::string>& monitored) {
  for (const auto& [property, evidence] : out.hw_violations) {
    const properties::PropertyInfo* info = properties::FindProperty(property);
    if (info == nullptr || !info->ObservableOn(properties::kSimBackend) ||
        FindCounterexample(out, property, /*with_aliases=*/true) != nullptr ||
        out.sim_search.ExhaustiveFor(property)) {
      continue;
    }
    ScenarioSearchOptions o;
    o.dfs_budget = options.sim_dpor_budget;
    o.random_executions = options.sim_executions;
    if (info->checker == properties::Checker::kMonitor) {
      if (std::find(monitored.begin(), monitored.end(), property) == monitored.end()) {
        continue;  // the simulator has no monitor for it here
      }
      o.properties = {property};
    } else {
      o.only_engine_properties = true;
    }
    out.sim_targeted[property] = SearchScenario(out.scenario->scenario, *out.policy, o);
    for (const auto& [p, cx] : out.sim_targeted[property].counterexamples) {
      out.sim_violations.emplace(p, cx.message);
    }
  }
}

// Every counterexample of the scenario, its steering derived from its own
// schedule, run on the GPU.
void Steer(ScenarioOutcome& out, const SideBySideOptions& options) {
  std::vector<const Counterexample*> all;
  for (const auto& [p, cx] : out.sim_search.counterexamples) all.push_back(&cx);
  for (const auto& [t, search] : out.sim_targeted) {
    for (const auto& [p, cx] : search.counterexamples) {
      if (out.sim_search.counterexamples.count(p) == 0) all.push_back(&cx);
    }
  }
  for (const Counterexample* cx : all) {
    const std::string& property = cx->record.property;
    if (out.steered.count(property) > 0) continue;
    SteeredCounterexample& s = out.steered[property];
    s.token = cx->token;
    absl::StatusOr<Steering> steering = SteeringFor(cx->record);
    if (!steering.ok()) {
      s.error = std::string(steering.status().message());
      continue;
    }
    s.steering = *steering;
    if (!s.steering.steerable) continue;
    SteeredReplayOptions o;
    o.runs = options.steer_runs;
    o.run.watchdog = options.watchdog;
    o.run.spawn_delays = s.steering.spawn_delays;
    o.run.min_kernel_duration = s.steering.min_kernel_duration;
    o.run_on_hardware = options.run_on_hardware;
    absl::StatusOr<SteeredReplayResult> r = ReplayOnHardware(cx->record, o);
    if (!r.ok()) {
      s.error = std::string(r.status().message());
      continue;
    }
    s.runs = std::move(r->runs);
    s.reproduced = r->reproduced;
    for (const HardwareRunResult& run : s.runs) {
      if (run.ending == HardwareRunResult::Ending::kSetupFailed) {
        s.error = absl::StrCat("setup failed: ", run.setup_error);
      }
    }
    if (options.progress) {
      options.progress(absl::StrFormat("cuda: %s / %s steered %s (%s): reproduced in %d of %d runs",
                                       out.policy->name, out.scenario->name, property,
                                       s.steering.Describe(), s.reproduced, s.runs.size()));
    }
  }
}

SimSide SimSideFor(const ScenarioOutcome& out, const std::string& property, bool available,
                   bool hw_violated) {
  SimSide side;
  side.checked = available;
  if (!available) return side;
  side.error = out.sim_search.error;
  auto t = out.sim_targeted.find(property);
  const ScenarioSearch& search = t != out.sim_targeted.end() ? t->second : out.sim_search;
  if (side.error.empty()) side.error = search.error;
  side.executions = search.executions();
  side.exhaustive = search.ExhaustiveFor(property);
  side.search = search.DescribeFor(property);
  // A hang on the GPU is compared with either of the simulator's names for it.
  if (const Counterexample* cx = FindCounterexample(out, property, hw_violated)) {
    side.violated = true;
    side.message = cx->record.property == property
                       ? cx->message
                       : absl::StrCat("as ", cx->record.property, ": ", cx->message);
    side.token = cx->token;
  }
  return side;
}

HwSide HwSideFor(const ScenarioOutcome& out, const std::string& property, const SimSide& sim,
                 bool steering_on) {
  HwSide side;
  side.observable = HardwareObserves(property);
  for (const HardwareRunResult& run : out.hardware_runs) {
    if (run.ending == HardwareRunResult::Ending::kSetupFailed || run.properties.empty()) {
      side.unavailable = run.setup_error.empty() ? "no run was judged" : run.setup_error;
      return side;
    }
    const PropertyResult* p = run.Find(property);
    if (p == nullptr || p->verdict == HwVerdict::kNotObserved) continue;
    ++side.runs;
    if (p->verdict == HwVerdict::kViolated && side.violated_runs++ == 0) {
      side.evidence = p->evidence;
    }
  }
  if (!sim.violated || !steering_on) return side;
  // The steered counterexample: the one the row's simulator side names.
  for (const auto& [p, steered] : out.steered) {
    if (steered.token != sim.token) continue;
    side.steered = true;
    side.steer_error = steered.error;
    if (!steered.steering.steerable && steered.error.empty()) {
      side.not_steerable = steered.steering.not_steerable;
    }
    side.steering = steered.steering.Describe();
    side.approximate = steered.steering.approximate;
    side.steered_runs = static_cast<int>(steered.runs.size());
    for (const HardwareRunResult& run : steered.runs) {
      const PropertyResult* r = run.Find(property);
      if (r != nullptr && r->verdict == HwVerdict::kViolated) ++side.reproduced;
    }
  }
  return side;
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
        options.run_on_hardware ? options.run_on_hardware(out.scenario->scenario, *out.policy, o)
                                : RunOnHardware(out.scenario->scenario, *out.policy, o);
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
      options.progress(absl::StrFormat("cuda: %s / %s run %d: %s in %.2f s; violated: %s",
                                       out.policy->name, out.scenario->name, run, r->EndingText(),
                                       r->seconds,
                                       violated.empty() ? "none" : absl::StrJoin(violated, ", ")));
    }
    const bool setup_failed = r->ending == HardwareRunResult::Ending::kSetupFailed;
    out.hardware_runs.push_back(*std::move(r));
    if (setup_failed) return;  // it will not get better
  }
}

VerdictCell SimCell(const std::vector<ScenarioOutcome>& outcomes, const PolicyInfo* policy,
                    const std::string& property, bool available) {
  VerdictCell cell;
  if (!available) {
    cell.message = "the simulator has no checker for it";  // kNotRun: no claim
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
    if (it != o.sim_violations.end() && cell.state != VerdictCell::State::kViolated) {
      cell.state = VerdictCell::State::kViolated;
      cell.size = o.scenario->name;
      cell.message = absl::StrCat(o.scenario->name, ": ", it->second);
    }
  }
  return cell;
}

VerdictCell CudaCell(const std::vector<ScenarioOutcome>& outcomes, const PolicyInfo* policy,
                     const std::string& property) {
  VerdictCell cell;  // kNotRun unless some run judged the property
  for (const ScenarioOutcome& o : outcomes) {
    if (o.policy != policy) continue;
    for (const HardwareRunResult& run : o.hardware_runs) {
      if (run.ending == HardwareRunResult::Ending::kSetupFailed || run.properties.empty()) {
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

absl::StatusOr<SideBySideResult> RunSideBySide(const SideBySideOptions& options) {
  std::vector<const PolicyInfo*> policies = options.policies;
  if (policies.empty()) {
    for (const PolicyInfo& p : AllPolicies()) policies.push_back(&p);
  }
  std::vector<const properties::NamedScenario*> scenarios = options.scenarios;
  if (scenarios.empty()) {
    for (const properties::NamedScenario& s : properties::HardwareScenarios()) {
      scenarios.push_back(&s);
    }
  }
  std::vector<std::pair<const properties::PropertyInfo*, std::string>> unavailable;
  const std::vector<const properties::PropertyInfo*> checked =
      properties::AvailableProperties(&unavailable);

  std::vector<std::string> monitored;
  for (const properties::PropertyInfo* p : checked) {
    if (p->checker == properties::Checker::kMonitor) monitored.emplace_back(p->name);
  }

  SideBySideResult result;
  // Hardware first; the simulator runs on fibers in this thread, so the
  // steered runs after it may fork too.
  for (const PolicyInfo* policy : policies) {
    for (const properties::NamedScenario* scenario : scenarios) {
      ScenarioOutcome out;
      out.policy = policy;
      out.scenario = scenario;
      if (options.hardware) RunHardware(out, options);
      result.outcomes.push_back(std::move(out));
    }
  }
  for (ScenarioOutcome& out : result.outcomes) {
    if (options.progress) {
      options.progress(absl::StrCat("sim: ", out.policy->name, " / ", out.scenario->name));
    }
    Simulate(out, options, monitored);
    if (options.hardware) SimulateTargeted(out, options, monitored);
  }
  if (options.hardware && options.steer_runs > 0) {
    for (ScenarioOutcome& out : result.outcomes) Steer(out, options);
  }

  result.table.columns = {"sim"};
  result.table.reach = properties::Reach::kFixedScenarios;
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
  if (!options.hardware) return result;
  for (ScenarioOutcome& out : result.outcomes) {
    for (const properties::PropertyInfo& prop : properties::AllProperties()) {
      PropertyComparison c;
      c.property = std::string(prop.name);
      bool available = prop.ObservableOn(properties::kSimBackend);
      for (const auto& [p, why] : unavailable) available &= p != &prop;
      c.sim = SimSideFor(out, c.property, available, out.hw_violations.count(c.property) > 0);
      c.hw = HwSideFor(out, c.property, c.sim, options.steer_runs > 0);
      c.comparison = CompareBackends(c.sim, c.hw);
      out.comparisons.push_back(std::move(c));
    }
  }
  return result;
}

bool BackendsDisagree(const SideBySideResult& result) {
  for (const ScenarioOutcome& o : result.outcomes) {
    for (const PropertyComparison& c : o.comparisons) {
      if (Disagrees(c.comparison.status)) return true;
    }
  }
  return false;
}

std::string FormatComparison(const SideBySideResult& result) {
  size_t policy_w = 6, scenario_w = 8, property_w = 8;
  std::map<RowStatus, int> quiet;  // statuses of the rows not listed
  std::vector<std::pair<const ScenarioOutcome*, const PropertyComparison*>> listed;
  for (const ScenarioOutcome& o : result.outcomes) {
    for (const PropertyComparison& c : o.comparisons) {
      const RowStatus s = c.comparison.status;
      if (s == RowStatus::kHoldsOnBoth || s == RowStatus::kNotObservable) {
        ++quiet[s];
        continue;
      }
      listed.emplace_back(&o, &c);
      policy_w = std::max(policy_w, std::strlen(o.policy->name));
      scenario_w = std::max(scenario_w, o.scenario->name.size());
      property_w = std::max(property_w, c.property.size());
    }
  }
  std::string out = absl::StrFormat("%-*s  %-*s  %-*s  %s\n", policy_w, "policy", scenario_w,
                                    "scenario", property_w, "property", "sim beside cuda");
  for (const auto& [o, c] : listed) {
    absl::StrAppendFormat(&out, "%-*s  %-*s  %-*s  %s\n", policy_w, o->policy->name, scenario_w,
                          o->scenario->name, property_w, c->property, c->comparison.text);
  }
  std::map<RowStatus, int> all = quiet;
  for (const auto& [o, c] : listed) ++all[c->comparison.status];
  std::vector<std::string> counts;
  for (const auto& [s, n] : all) {
    counts.push_back(absl::StrFormat("%d %s", n, RowStatusName(s)));
  }
  absl::StrAppendFormat(&out,
                        "(%s; the unlisted rows hold on both, or hold on "
                        "sim and cannot be observed on the GPU)\n",
                        absl::StrJoin(counts, ", "));
  return out;
}

std::string FormatScenarioMatrix(const SideBySideResult& result, bool with_run_facts) {
  std::string out;
  // Scenario-major: outcomes were produced policy by policy.
  std::vector<const ScenarioOutcome*> order;
  for (const ScenarioOutcome& o : result.outcomes) order.push_back(&o);
  std::stable_sort(
      order.begin(), order.end(),
      [](const ScenarioOutcome* a, const ScenarioOutcome* b) { return a->scenario < b->scenario; });
  const properties::NamedScenario* current = nullptr;
  for (const ScenarioOutcome* op : order) {
    const ScenarioOutcome& o = *op;
    if (o.scenario != current) {
      current = o.scenario;
      absl::StrAppendFormat(&out, "\n%s: %s\n", current->name, current->aim);
    }
    std::string search;
    if (o.sim_search.exhausted) {
      search = absl::StrFormat("exhaustive DPOR, %d executions", o.sim_executions);
    } else {
      search = absl::StrFormat("%d executions, not exhaustive", o.sim_executions);
    }
    absl::StrAppendFormat(&out, "  %-22s sim (%s): %s\n", o.policy->name, search,
                          o.sim_error.empty() ? Names(o.sim_violations) : "error: " + o.sim_error);
    for (const auto& [p, targeted] : o.sim_targeted) {
      absl::StrAppendFormat(&out, "  %-22s   %s alone (%s): %s\n", "", p, targeted.DescribeFor(p),
                            targeted.counterexamples.empty() ? "no violation" : "violated");
    }
    if (o.hardware_runs.empty()) continue;
    std::vector<std::string> endings;
    for (const HardwareRunResult& r : o.hardware_runs) {
      endings.push_back(absl::StrFormat("%s %.1fs", r.EndingText(), r.seconds));
    }
    absl::StrAppendFormat(&out, "  %-22s cuda (%s): %s\n", "", absl::StrJoin(endings, ", "),
                          Names(o.hw_violations));
    for (const auto& [p, evidence] : o.hw_violations) {
      absl::StrAppendFormat(&out, "  %-22s   %s: %s\n", "", p, evidence);
    }
    for (const auto& [p, steered] : o.steered) {
      absl::StrAppendFormat(
          &out, "  %-22s   steered %s: %s%s\n", "", p,
          steered.error.empty() ? steered.steering.Describe() : "error: " + steered.error,
          steered.runs.empty() ? ""
                               : absl::StrFormat("; reproduced in %d of %d runs",
                                                 steered.reproduced, steered.runs.size()));
    }
    for (const PropertyComparison& c : o.comparisons) {
      if (c.comparison.status == RowStatus::kHoldsOnBoth ||
          c.comparison.status == RowStatus::kNotObservable) {
        continue;
      }
      absl::StrAppendFormat(&out, "  %-22s   => %s: %s\n", "", c.property,
                            RowStatusName(c.comparison.status));
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

}  // namespace stackcheck::hardware
