// `stackcheck bench sim`: how fast the simulator explores as users run it,
// and that its memory stays flat. The catalogue's standard and peer scenarios
// (and their +exit forms) run through the real runtime under the v2-gcc11
// policy with random schedules, on one core, through properties::Explore with
// every monitor the campaign attaches; then once more with no monitor, the
// engine alone.
// Prints, per scenario, `steps_per_s NAME N` and `executions_per_s NAME N`
// (per CPU-second of the one thread that runs them), the same prefixed
// `engine_only `, and peak RSS after a tenth of the executions and after all
// of them; --json prints one JSON object with the same figures.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "properties/explore.h"
#include "properties/json_writer.h"
#include "properties/scenarios.h"

ABSL_FLAG(std::uint64_t, bench_executions, 1000000,
          "bench sim: executions per scenario (RSS is also sampled at a tenth)");
ABSL_FLAG(std::uint64_t, bench_seed, 1, "bench sim: seed of the random schedules");
ABSL_FLAG(std::string, bench_only, "",
          "bench sim: run only the scenario with this name (e.g. peer+exit)");

namespace stackcheck::cli {
namespace {

// CPU time of this thread: the figures are per core, and stay honest on a
// loaded machine where wall time would count other processes' turns.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

long PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

struct SimFigures {
  std::string name;
  bool monitored = true;
  std::uint64_t executions = 0;
  std::uint64_t steps = 0;
  std::uint64_t violations = 0;
  double cpu_s = 0;
  double wall_s = 0;
  std::uint64_t checkpoint = 0;  // executions at the first RSS sample (0: none)
  long rss_checkpoint_kib = 0;
  long rss_end_kib = 0;
  std::string error;  // the run did not complete
};

// Explores `scenario` with random schedules as a campaign does: every
// monitor the policy is checked with (or none, for the engine-only figure),
// trace digests, the schedule recorder.
SimFigures Bench(const std::string& name, const Scenario& scenario, const PolicyInfo& policy,
                 std::uint64_t executions, std::uint64_t seed, bool monitored) {
  SimFigures f;
  f.name = name;
  f.monitored = monitored;
  f.executions = executions;
  f.checkpoint = executions / 10;
  properties::ExploreSpec spec;
  spec.test_case.scenario = scenario;
  spec.policy = &policy;
  spec.monitors.kind =
      monitored ? properties::MonitorSelection::kAll : properties::MonitorSelection::kNone;
  spec.strategy = "random";
  spec.strategy_params.seed = seed;
  spec.max_executions = executions;
  spec.stop = properties::StopRule::kNever;
  std::uint64_t done = 0;
  spec.on_execution = [&](const sim::ExecutionResult& r) {
    f.steps += r.steps;
    if (++done == f.checkpoint) f.rss_checkpoint_kib = PeakRssKib();
  };
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ThreadCpuSeconds();
  const properties::ExploreReport r = properties::Explore(spec);
  f.cpu_s = ThreadCpuSeconds() - cpu_start;
  f.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.rss_end_kib = PeakRssKib();
  f.violations = r.violating_executions;
  if (!r.status.ok()) f.error = std::string(r.status.message());
  return f;
}

void PrintText(const SimFigures& f) {
  const char* name = f.name.c_str();
  const char* engine = f.monitored ? "" : "engine_only ";
  absl::PrintF("%ssteps_per_s %s %.0f\n", engine, name, f.steps / f.cpu_s);
  absl::PrintF("%sexecutions_per_s %s %.0f\n", engine, name, f.executions / f.cpu_s);
  absl::PrintF("%scpu_s %s %.3f (wall %.3f)\n", engine, name, f.cpu_s, f.wall_s);
  absl::PrintF("%ssteps_per_execution %s %.1f\n", engine, name,
               static_cast<double>(f.steps) / f.executions);
  absl::PrintF("%sviolations %s %d\n", engine, name, f.violations);
  if (!f.monitored) return;  // memory: the monitored run's figures
  if (f.checkpoint > 0) {
    absl::PrintF("peak_rss_kib %s after %d executions: %d\n", name, f.checkpoint,
                 f.rss_checkpoint_kib);
  }
  absl::PrintF("peak_rss_kib %s after %d executions: %d\n", name, f.executions,
               f.rss_end_kib);
}

void WriteJson(const SimFigures& f, properties::JsonWriter& json) {
  json.BeginObject();
  json.Key("scenario").String(f.name);
  json.Key("monitors").String(f.monitored ? "all" : "none (engine_only)");
  json.Key("executions").Uint(f.executions);
  json.Key("steps_per_s").Double(f.steps / f.cpu_s);
  json.Key("executions_per_s").Double(f.executions / f.cpu_s);
  json.Key("cpu_s").Double(f.cpu_s);
  json.Key("wall_s").Double(f.wall_s);
  json.Key("steps_per_execution").Double(static_cast<double>(f.steps) / f.executions);
  json.Key("violations").Uint(f.violations);
  json.Key("peak_rss_kib").BeginArray();
  if (f.checkpoint > 0) {
    json.BeginObject();
    json.Key("after_executions").Uint(f.checkpoint);
    json.Key("kib").Int(f.rss_checkpoint_kib);
    json.EndObject();
  }
  json.BeginObject();
  json.Key("after_executions").Uint(f.executions);
  json.Key("kib").Int(f.rss_end_kib);
  json.EndObject();
  json.EndArray();
  json.EndObject();
}

int RunBenchSim(const std::vector<std::string>& args) {
  if (!args.empty()) {
    return UsageError("bench sim takes no arguments (flags: --bench_executions, "
                      "--bench_seed, --bench_only)");
  }
  const std::uint64_t executions = absl::GetFlag(FLAGS_bench_executions);
  if (executions == 0) return UsageError("--bench_executions must be at least 1");
  const PolicyInfo* policy = FindPolicy("v2-gcc11");
  if (policy == nullptr) return UsageError("policy v2-gcc11 is not in this build");
  const std::uint64_t seed = absl::GetFlag(FLAGS_bench_seed);
  const std::string only = absl::GetFlag(FLAGS_bench_only);
  const char* const names[] = {"standard", "peer", "standard+exit", "peer+exit"};
  bool known = only.empty();
  for (const char* name : names) known |= only == name;
  if (!known) {
    return UsageError(absl::StrFormat("--bench_only must be one of %s, not '%s'",
                                      absl::StrJoin(names, ", "), only));
  }
  const bool json = absl::GetFlag(FLAGS_json);
  properties::JsonWriter out;
  if (json) {
    out.BeginObject();
    out.Key("command").String("bench sim");
    out.Key("policy").String(policy->name);
    out.Key("seed").Uint(seed);
    out.Key("scenarios").BeginArray();
  } else {
    absl::PrintF("# one core, random schedules, policy %s, %d executions each; every "
                 "monitor the campaign attaches, then the engine alone (engine_only)\n",
                 policy->name, executions);
  }
  int rc = kExitOk;
  for (const char* name : names) {
    if (!only.empty() && only != name) continue;
    const Scenario& scenario = properties::FindScenario(name)->scenario;
    for (bool monitored : {true, false}) {
      SimFigures f = Bench(name, scenario, *policy, executions, seed, monitored);
      // The policy and scenarios are fixed and clean: a violation is a bug of
      // the engine, the runtime or a monitor.
      if (f.violations != 0 || !f.error.empty()) rc = kExitMismatch;
      if (!f.error.empty()) absl::FPrintF(stderr, "stackcheck: %s: %s\n", f.name, f.error);
      if (json) {
        WriteJson(f, out);
      } else {
        PrintText(f);
      }
    }
  }
  if (!json) return rc;
  out.EndArray();
  return PrintJsonResult(out, rc);
}

const bool registered = RegisterCommand(
    {"bench sim", "bench sim [--bench_executions=N] [--bench_only=NAME]",
     "simulator speed (steps/s, executions/s) and peak memory", &RunBenchSim});

}  // namespace
}  // namespace stackcheck::cli
