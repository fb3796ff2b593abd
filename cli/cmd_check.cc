// `stackcheck check --policy P --strategy dfs|plain-dfs|random|pct ...`:
// explores one bounded scenario under one policy and says how much of its
// schedule space was covered.
//
//   --scenario regions  --threads N host threads x --regions M regions each;
//                       region sizes alternate 1 and 2 warp slots so the
//                       cached block must grow; --abort makes thread 0's last
//                       region abort (a trap).
//   --scenario peer     2 threads x 2 regions of 1 then 2 slots (the scenario
//                       of `bench sim`).
//
// Every simulator property is monitored, except deviations the policy
// declares it accepts and, with --only_kept, the bugs the expected-verdicts
// table lists for it (so that an exhaustive search can go past them). Prints `executions N`, `exhausted yes|no` and the
// first violation (with a replay token); for --strategy dfs it then runs a
// plain DFS (no reduction) on a budget and prints its count and the
// reduction. "exhausted yes" from dfs means: every schedule of this scenario
// with at most --bound preemptions (all of them without a bound) is
// equivalent, step dependencies respected, to an explored one, so the
// verdict holds for all of them (see sim/strategies/dfs_strategy.h).
//
// --json prints the same facts as one JSON object (the violation with its
// replay token, the plain-DFS run as a nested object).
//
// Exit status: 0 when no property the policy is expected to keep was
// violated, 1 otherwise, 2 on bad input.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/flag_parser.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "core/scenario_runner.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/exhaustive.h"
#include "properties/executor.h"
#include "properties/expected_verdicts.h"
#include "properties/json_writer.h"
#include "properties/replay_file.h"
#include "sim/monitors/monitors.h"
#include "sim/simulator.h"
#include "sim/strategies/determinism_check.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/metrics_strategy.h"
#include "sim/strategies/pct_strategy.h"
#include "sim/strategies/random_strategy.h"

ABSL_FLAG(std::string, strategy, "dfs",
          "check: dfs (with DPOR or sleep sets), plain-dfs, random or pct");
ABSL_FLAG(int, bound, -1, "check: preemption bound for dfs (-1 = none)");
ABSL_FLAG(bool, iterative, false,
          "check: dfs with bounds 0, 1, ... up to --bound (finds shallow bugs first)");
ABSL_FLAG(std::string, scenario, "regions", "check: regions or peer");
ABSL_FLAG(int, threads, 2, "check: host threads of the regions scenario (1-4)");
ABSL_FLAG(int, regions, 3, "check: regions per thread of the regions scenario (1-8)");
ABSL_FLAG(bool, abort, false, "check: thread 0's last region aborts");
ABSL_FLAG(int, mapped_vars, 0,
          "check: variables every region maps (0-4): allocations and copies under "
          "the device lock before and after each region");
ABSL_FLAG(std::uint64_t, max_executions, 0,
          "check: execution budget (0 = 10,000,000 for dfs, 10,000 for random/pct)");
ABSL_FLAG(std::uint64_t, plain_budget, 0,
          "check: budget of the plain-DFS comparison run (0 = 20x the dfs count, at "
          "least 1,000)");
ABSL_FLAG(bool, no_plain, false, "check: skip the plain-DFS comparison");
ABSL_FLAG(bool, only_kept, false,
          "check: monitor only the properties the policy is expected to keep (not "
          "those the expected-verdicts table marks violated), so that dfs explores "
          "past its known bugs and `exhausted yes` proves the rest");
ABSL_FLAG(int, depth, 3, "check: PCT bug depth");
ABSL_FLAG(std::uint64_t, determinism_every, 0,
          "check: re-run executions 1, 1+N, 1+2N, ... with the same choices and "
          "compare trace digests (0 = off)");

namespace stackcheck::cli {
namespace {

using properties::Expectation;

absl::StatusOr<Scenario> BuildRegions() {
  const std::string name = absl::GetFlag(FLAGS_scenario);
  Scenario s;
  RegionId next = 1;
  auto region = [&](std::uint32_t units) {
    // One unit = one warp's stack slot.
    return HostOp::Run(next++, /*teams=*/units, /*warps=*/1);
  };
  if (name == "peer") {
    for (int t = 0; t < 2; ++t) {
      ThreadProgram program;
      for (std::uint32_t units : {1u, 2u}) program.ops.push_back(region(units));
      s.threads.push_back(program);
    }
  } else if (name == "regions") {
    const int threads = absl::GetFlag(FLAGS_threads);
    const int regions = absl::GetFlag(FLAGS_regions);
    if (threads < 1 || threads > 4) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--threads must be 1..4, not %d", threads));
    }
    if (regions < 1 || regions > 8) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--regions must be 1..8, not %d", regions));
    }
    return properties::RegionsScenario(threads, regions, absl::GetFlag(FLAGS_abort));
  } else {
    return absl::InvalidArgumentError(
        absl::StrFormat("--scenario must be regions or peer, not '%s'", name));
  }
  if (absl::GetFlag(FLAGS_abort)) s.threads[0].ops.back().region.aborts = true;
  return s;
}

absl::StatusOr<Scenario> BuildScenario() {
  const int mapped = absl::GetFlag(FLAGS_mapped_vars);
  if (mapped < 0 || mapped > 4) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--mapped_vars must be 0..4, not %d", mapped));
  }
  absl::StatusOr<Scenario> s = BuildRegions();
  if (!s.ok()) return s;
  for (ThreadProgram& t : s->threads) {
    for (HostOp& op : t.ops) op.region.mapped_vars = static_cast<std::uint32_t>(mapped);
  }
  return s;
}

// A flag given that has no effect with this strategy and scenario is a usage
// error, not a silent no-op.
absl::Status CheckFlagsApply(const std::string& strategy) {
  struct Rule {
    const char* flag;
    bool applies;
    const char* when;
  };
  const bool dfs = strategy == "dfs" || strategy == "plain-dfs";
  const bool regions = absl::GetFlag(FLAGS_scenario) == "regions";
  const Rule rules[] = {
      {"bound", dfs, "--strategy dfs or plain-dfs"},
      {"iterative", dfs, "--strategy dfs or plain-dfs"},
      {"plain_budget", strategy == "dfs", "--strategy dfs"},
      {"no_plain", strategy == "dfs", "--strategy dfs"},
      {"depth", strategy == "pct", "--strategy pct"},
      {"seed", !dfs, "--strategy random or pct"},
      {"threads", regions, "--scenario regions"},
      {"regions", regions, "--scenario regions"},
  };
  for (const Rule& r : rules) {
    if (!r.applies && FlagGiven(r.flag)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--%s has no effect here: it is read only with %s", r.flag, r.when));
    }
  }
  return absl::OkStatus();
}

// Passes answers through and keeps them as SequenceStrategy values (actor
// choices relative to the current actor), the form a Case schedule takes.
class SequenceRecorder : public sim::Strategy {
 public:
  explicit SequenceRecorder(sim::Strategy& inner) : inner_(inner) {}
  bool NewExecution() override {
    values_.clear();
    return inner_.NewExecution();
  }
  std::size_t NextActor(const sim::SchedulingPoint& point) override {
    const std::size_t chosen = inner_.NextActor(point);
    const std::size_t n = point.runnable.size();
    if (n > 1) {  // single-candidate points are not part of a schedule
      const std::size_t base = point.current >= 0 ? point.current : 0;
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
  std::vector<std::uint64_t> values() const {
    std::vector<std::uint64_t> v = values_;
    while (!v.empty() && v.back() == 0) v.pop_back();  // the defaults
    return v;
  }

 private:
  sim::Strategy& inner_;
  std::vector<std::uint64_t> values_;
};

struct Outcome {
  std::uint64_t executions = 0;
  std::optional<sim::Violation> violation;
  std::uint64_t violation_at = 0;  // 1-based execution
  std::vector<std::uint64_t> schedule;
  double seconds = 0;
  bool engine_skips_points = false;  // DPOR only: see ObservesEveryStep
  std::uint64_t reruns = 0;          // determinism re-runs (not counted above)
  sim::StrategyMetrics metrics;
  absl::Status determinism;          // not OK: a re-run diverged
};

// Whether a simulator monitor checks `property` (the others are judged by
// the engine itself, or only on hardware).
bool HasSimMonitor(const properties::PropertyInfo& property) {
  return property.ObservableOn(properties::kSimBackend) &&
         property.checker == properties::Checker::kMonitor;
}

// Whether check watches `property` for `policy`: never a deviation the policy
// declares, nor with --only_kept a bug the table expects.
bool Monitored(const PolicyInfo& policy, const properties::PropertyInfo& property) {
  const Expectation e = properties::ExpectedVerdict(policy.name, property.name);
  if (e == Expectation::kAcceptedDeviation) return false;
  return !absl::GetFlag(FLAGS_only_kept) ||
         (e != Expectation::kViolated && e != Expectation::kViolatedRarely);
}

// Runs `strategy` until it has nothing left, the budget is spent or a
// violation is found.
Outcome Explore(const properties::Case& c, const PolicyInfo& policy,
                sim::Strategy& strategy, sim::DfsStrategy* dfs,
                std::uint64_t budget) {
  sim::MonitorParams params;
  params.soft_limit = c.scenario.soft_limit;
  std::vector<std::unique_ptr<sim::Monitor>> monitors;
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    if (!HasSimMonitor(p) || !Monitored(policy, p)) continue;
    absl::StatusOr<std::unique_ptr<sim::Monitor>> m =
        sim::MakeMonitor(p.monitor_name, params);
    if (m.ok()) monitors.push_back(*std::move(m));
  }
  sim::Simulator simulator(SimConfigFor(c), std::move(monitors));
  // Re-runs come from the determinism check and never reach `strategy`.
  sim::MetricsStrategy metrics(strategy);
  sim::DeterminismCheck determinism(
      metrics, {absl::GetFlag(FLAGS_determinism_every)});
  SequenceRecorder recorder(determinism);
  Outcome out;
  const auto start = std::chrono::steady_clock::now();
  while (out.executions < budget && recorder.NewExecution()) {
    const sim::ExecutionResult& r = simulator.Run(
        recorder, [&](Device& device, Host& host, RuntimeObserver& observer) {
          RunScenario(c.scenario, device, host, observer, policy);
        });
    determinism.ReportDigest(r.digest);
    if (!determinism.status().ok()) {
      out.determinism = determinism.status();
      break;
    }
    if (determinism.is_rerun()) {
      ++out.reruns;
      continue;
    }
    ++out.executions;
    // An engine that honours ObservesEveryStep asks at every point but the
    // last (the one that finds nobody runnable).
    if (dfs != nullptr && dfs->ObservesEveryStep() &&
        r.steps > dfs->points_seen() + 1) {
      out.engine_skips_points = true;
      break;
    }
    if (r.violation) {
      out.violation = r.violation;
      out.violation_at = out.executions;
      out.schedule = recorder.values();
      break;
    }
  }
  out.metrics = metrics.metrics();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              start)
                    .count();
  return out;
}

// The replay token of the outcome's violation (which it must have).
std::string ReplayToken(const Outcome& o, const properties::Case& c,
                        const PolicyInfo& policy) {
  properties::ReplayRecord record;
  record.policy = policy.name;
  record.property = o.violation->property;
  record.test_case = c;
  record.test_case.schedule = o.schedule;
  return properties::EncodeReplayToken(record);
}

void PrintViolation(const Outcome& o, const properties::Case& c,
                    const PolicyInfo& policy, const char* prefix) {
  absl::PrintF("%smetrics %s\n", prefix, o.metrics.Summary());
  if (o.reruns > 0) absl::PrintF("%sdeterminism_reruns %d\n", prefix, o.reruns);
  if (!o.violation) {
    absl::PrintF("%sviolation none\n", prefix);
    return;
  }
  absl::PrintF("%sviolation %s at execution %d: %s\n", prefix,
               o.violation->property, o.violation_at, o.violation->message);
  absl::PrintF("%sreplay %s\n", prefix, ReplayToken(o, c, policy));
}

// The same facts as PrintViolation, as members of the current JSON object.
void WriteOutcomeJson(const Outcome& o, const properties::Case& c,
                      const PolicyInfo& policy, properties::JsonWriter& json) {
  json.Key("executions").Uint(o.executions);
  json.Key("seconds").Double(o.seconds);
  json.Key("metrics").BeginObject();
  json.Key("steps").Uint(o.metrics.actor_choices);
  json.Key("numbers").Uint(o.metrics.number_choices);
  json.Key("preemptions").Uint(o.metrics.preemptions);
  json.Key("max_choices").Uint(o.metrics.max_choices);
  json.Key("max_preemptions").Uint(o.metrics.max_preemptions);
  json.EndObject();
  if (o.reruns > 0) json.Key("determinism_reruns").Uint(o.reruns);
  json.Key("violation");
  if (!o.violation) {
    json.Null();
    return;
  }
  json.BeginObject();
  json.Key("property").String(o.violation->property);
  json.Key("at_execution").Uint(o.violation_at);
  json.Key("message").String(o.violation->message);
  json.Key("expected").String(properties::ExpectationName(
      properties::ExpectedVerdict(policy.name, o.violation->property)));
  json.Key("replay").String(ReplayToken(o, c, policy));
  json.EndObject();
}

bool Unexpected(const Outcome& o, const PolicyInfo& policy) {
  if (!o.determinism.ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", o.determinism.message());
    return true;
  }
  return o.violation && properties::ExpectedVerdict(policy.name, o.violation->property) ==
                            Expectation::kHolds;
}

int RunCheck(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("check takes no arguments (use --policy, --strategy, ...)");
  const std::string policy_name = absl::GetFlag(FLAGS_policy);
  if (policy_name.empty()) return UsageError("check needs --policy (see `stackcheck policies`)");
  const PolicyInfo* policy = FindPolicy(policy_name);
  if (policy == nullptr) {
    std::vector<std::string> known;
    for (const PolicyInfo& p : AllPolicies()) known.emplace_back(p.name);
    return UsageError(absl::StrFormat("unknown policy '%s' (known: %s)", policy_name,
                                      absl::StrJoin(known, ", ")));
  }
  absl::StatusOr<Scenario> scenario = BuildScenario();
  if (!scenario.ok()) return UsageError(scenario.status().message());
  const std::string strategy_name = absl::GetFlag(FLAGS_strategy);
  const int bound = absl::GetFlag(FLAGS_bound);
  if (bound < -1) return UsageError("--bound must be -1 (none) or at least 0");
  if (absl::GetFlag(FLAGS_iterative) && bound < 0) {
    return UsageError("--iterative needs a --bound to stop at");
  }
  const bool is_dfs = strategy_name == "dfs" || strategy_name == "plain-dfs";
  if (!is_dfs && strategy_name != "random" && strategy_name != "pct") {
    return UsageError(absl::StrFormat(
        "--strategy must be dfs, plain-dfs, random or pct, not '%s'", strategy_name));
  }
  if (absl::Status s = CheckFlagsApply(strategy_name); !s.ok()) return UsageError(s.message());
  const int depth = absl::GetFlag(FLAGS_depth);
  if (depth < 1) return UsageError("--depth must be at least 1");
  std::uint64_t budget = absl::GetFlag(FLAGS_max_executions);
  if (budget == 0) budget = is_dfs ? 10000000 : 10000;

  properties::Case c;
  c.scenario = *scenario;
  const properties::CaseSize size = properties::SizeOf(c);
  const bool json = absl::GetFlag(FLAGS_json);
  std::vector<std::string> not_monitored;  // simulator monitors left out
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    if (HasSimMonitor(p) && !Monitored(*policy, p)) not_monitored.emplace_back(p.name);
  }
  properties::JsonWriter out;
  if (json) {
    out.BeginObject();
    out.Key("command").String("check");
    out.Key("policy").String(policy->name);
    out.Key("scenario").String(absl::GetFlag(FLAGS_scenario));
    out.Key("threads").Int(size.threads);
    out.Key("regions_in_all").Int(size.regions);
    out.Key("abort").Bool(absl::GetFlag(FLAGS_abort));
    out.Key("strategy").String(strategy_name);
    if (is_dfs) {
      out.Key("bound").Int(bound);
      out.Key("iterative").Bool(absl::GetFlag(FLAGS_iterative));
    }
    out.Key("not_monitored").BeginArray();
    for (const std::string& name : not_monitored) out.String(name);
    out.EndArray();
  } else {
    absl::PrintF("check: policy %s, scenario %s (%d threads, %d regions in all%s), strategy %s",
                 policy->name, absl::GetFlag(FLAGS_scenario), size.threads, size.regions,
                 absl::GetFlag(FLAGS_abort) ? ", one aborts" : "", strategy_name);
    if (is_dfs) {
      absl::PrintF(", preemption bound %s%s",
                   bound < 0 ? std::string("none") : absl::StrCat(bound),
                   absl::GetFlag(FLAGS_iterative) ? " (iterative)" : "");
    }
    absl::PrintF("\n");
    if (!not_monitored.empty()) {
      absl::PrintF("not_monitored %s\n", absl::StrJoin(not_monitored, ","));
    }
  }
  // With --json, ends the object and prints it; returns `rc`.
  auto finish = [&](int rc) { return json ? PrintJsonResult(out, rc) : rc; };

  if (!is_dfs) {
    const std::uint64_t seed = absl::GetFlag(FLAGS_seed);
    std::unique_ptr<sim::Strategy> strategy;
    if (strategy_name == "random") {
      strategy = std::make_unique<sim::RandomStrategy>(
          sim::RandomStrategy::Options{seed, budget, 0});
    } else {
      sim::PctStrategy::Options options;
      options.seed = seed;
      options.depth = static_cast<std::uint32_t>(depth);
      options.max_executions = budget;
      strategy = std::make_unique<sim::PctStrategy>(options);
    }
    const Outcome o = Explore(c, *policy, *strategy, nullptr, budget);
    if (json) {
      out.Key("seed").Uint(seed);
      out.Key("exhausted").Bool(false);  // sampling never exhausts anything
      WriteOutcomeJson(o, c, *policy, out);
    } else {
      absl::PrintF("executions %d\n", o.executions);
      absl::PrintF("exhausted no\n");  // sampling never exhausts anything
      absl::PrintF("time_s %.2f\n", o.seconds);
      PrintViolation(o, c, *policy, "");
    }
    return finish(Unexpected(o, *policy) ? kExitMismatch : kExitOk);
  }

  sim::DfsStrategy::Options options;
  options.preemption_bound = bound;
  options.iterative_bounding = absl::GetFlag(FLAGS_iterative);
  options.sleep_sets = strategy_name == "dfs";
  options.max_executions = budget;
  auto dfs = std::make_unique<sim::DfsStrategy>(options);
  Outcome o = Explore(c, *policy, *dfs, dfs.get(), budget);
  if (o.engine_skips_points) {
    options.dpor = false;
    dfs = std::make_unique<sim::DfsStrategy>(options);
    o = Explore(c, *policy, *dfs, dfs.get(), budget);
    absl::FPrintF(stderr, "note: the engine does not ask at single-candidate points, so "
                  "DPOR is off (sleep sets alone)\n");
  }
  if (!dfs->status().ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", dfs->status().message());
    return finish(kExitMismatch);
  }
  const bool exhausted = dfs->exhausted() && !o.violation && o.determinism.ok();
  const sim::DfsStrategy::Stats& stats = dfs->stats();
  if (json) {
    out.Key("reduction").String(dfs->reduction());
    out.Key("exhausted").Bool(exhausted);
    if (exhausted && bound >= 0) out.Key("bound_cut").Bool(dfs->bound_cut());
    out.Key("sleep_blocked").Uint(stats.sleep_blocked);
    if (options.iterative_bounding) {
      out.Key("rounds").Uint(stats.rounds);
      out.Key("last_bound").Int(dfs->current_bound());
    }
    WriteOutcomeJson(o, c, *policy, out);
  } else {
    absl::PrintF("reduction %s\n", dfs->reduction());
    absl::PrintF("executions %d\n", o.executions);
    absl::PrintF("exhausted %s\n", exhausted ? "yes" : "no");
    if (exhausted && bound >= 0) {
      absl::PrintF("bound_cut %s\n", dfs->bound_cut() ? "yes (exhausted within the bound)"
                                                       : "no (complete without bound)");
    }
    absl::PrintF("sleep_blocked %d\n", stats.sleep_blocked);
    if (options.iterative_bounding) {
      absl::PrintF("rounds %d (last bound %d)\n", stats.rounds, dfs->current_bound());
    }
    absl::PrintF("time_s %.2f\n", o.seconds);
    PrintViolation(o, c, *policy, "");
  }

  if (strategy_name == "dfs" && !absl::GetFlag(FLAGS_no_plain)) {
    std::uint64_t plain_budget = absl::GetFlag(FLAGS_plain_budget);
    if (plain_budget == 0) plain_budget = std::max<std::uint64_t>(1000, 20 * o.executions);
    sim::DfsStrategy::Options plain_options = options;
    plain_options.sleep_sets = false;
    plain_options.dpor = false;
    plain_options.max_executions = plain_budget;
    sim::DfsStrategy plain(plain_options);
    const Outcome p = Explore(c, *policy, plain, &plain, plain_budget);
    const bool plain_exhausted = plain.exhausted() && !p.violation;
    if (json) {
      out.Key("plain_dfs").BeginObject();
      out.Key("exhausted").Bool(plain_exhausted);
      WriteOutcomeJson(p, c, *policy, out);
      out.EndObject();
    } else {
      absl::PrintF("plain_dfs_executions %d\n", p.executions);
      absl::PrintF("plain_dfs_exhausted %s\n", plain_exhausted ? "yes" : "no");
      absl::PrintF("plain_dfs_time_s %.2f\n", p.seconds);
      PrintViolation(p, c, *policy, "plain_dfs_");
    }
    // Comparable only when both searches ran to the same end.
    if (!o.violation && !p.violation && exhausted) {
      const double ratio = static_cast<double>(p.executions) /
                           static_cast<double>(std::max<std::uint64_t>(1, o.executions));
      if (json) {
        out.Key("reduction_ratio").Double(ratio);
        out.Key("reduction_ratio_is_lower_bound").Bool(!plain.exhausted());
      } else {
        absl::PrintF("reduction_ratio %s%.1f\n", plain.exhausted() ? "" : ">= ", ratio);
      }
    }
  }
  return finish(Unexpected(o, *policy) ? kExitMismatch : kExitOk);
}

const bool registered = RegisterCommand(
    {"check",
     "check --policy P [--strategy dfs|plain-dfs|random|pct] [--bound K] "
     "[--scenario regions|peer] [--threads N] [--regions M] [--abort] [--mapped_vars K]",
     "explore one bounded scenario exhaustively (or by sampling) and report coverage",
     &RunCheck});

}  // namespace
}  // namespace stackcheck::cli
