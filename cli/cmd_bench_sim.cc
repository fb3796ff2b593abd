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
#include "cli/report_sink.h"
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
  f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.rss_end_kib = PeakRssKib();
  f.violations = r.violating_executions;
  if (!r.status.ok()) f.error = std::string(r.status.message());
  return f;
}

// One row of the report: JSON an object of the "scenarios" array, text
// "FIGURE SCENARIO value" lines (prefixed engine_only for the engine alone).
void Describe(const SimFigures& f, ReportSink& out) {
  out.BeginRow(f.name, f.monitored ? "" : "engine_only ");
  out.Fields("", [&f](properties::JsonWriter& j) {
    j.Key("scenario").String(f.name);
    j.Key("monitors").String(f.monitored ? "all" : "none (engine_only)");
    j.Key("executions").Uint(f.executions);
  });
  out.Number("steps_per_s", f.steps / f.cpu_s, "%.0f");
  out.Number("executions_per_s", f.executions / f.cpu_s, "%.0f");
  out.Fields(absl::StrFormat("%scpu_s %s %.3f (wall %.3f)", f.monitored ? "" : "engine_only ",
                             f.name, f.cpu_s, f.wall_s),
             [&f](properties::JsonWriter& j) {
               j.Key("cpu_s").Double(f.cpu_s);
               j.Key("wall_s").Double(f.wall_s);
             });
  out.Number("steps_per_execution", static_cast<double>(f.steps) / f.executions, "%.1f");
  out.Field("violations", f.violations);
  // Memory: the text gives the monitored run's samples only.
  std::string rss_text;
  if (f.monitored && f.checkpoint > 0) {
    rss_text = absl::StrFormat("peak_rss_kib %s after %d executions: %d\n", f.name, f.checkpoint,
                               f.rss_checkpoint_kib);
  }
  if (f.monitored) {
    absl::StrAppendFormat(&rss_text, "peak_rss_kib %s after %d executions: %d\n", f.name,
                          f.executions, f.rss_end_kib);
  }
  out.Fields(rss_text, [&f](properties::JsonWriter& j) {
    j.Key("peak_rss_kib").BeginArray();
    if (f.checkpoint > 0) {
      j.BeginObject();
      j.Key("after_executions").Uint(f.checkpoint);
      j.Key("kib").Int(f.rss_checkpoint_kib);
      j.EndObject();
    }
    j.BeginObject();
    j.Key("after_executions").Uint(f.executions);
    j.Key("kib").Int(f.rss_end_kib);
    j.EndObject();
    j.EndArray();
  });
  out.EndRow();
}

int RunBenchSim(const std::vector<std::string>& args) {
  if (!args.empty()) {
    return UsageError(
        "bench sim takes no arguments (flags: --bench_executions, "
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
  ReportSink out(absl::GetFlag(FLAGS_json), "bench sim");
  out.Fields(absl::StrFormat("# one core, random schedules, policy %s, %d executions each; "
                             "every monitor the campaign attaches, then the engine alone "
                             "(engine_only)",
                             policy->name, executions),
             [&](properties::JsonWriter& j) {
               j.Key("policy").String(policy->name);
               j.Key("seed").Uint(seed);
             });
  out.BeginRows("scenarios");
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
      Describe(f, out);
    }
  }
  out.EndRows();
  return out.Finish(rc);
}

const bool registered =
    RegisterCommand({"bench sim", "bench sim [--bench_executions=N] [--bench_only=NAME]",
                     "simulator speed (steps/s, executions/s) and peak memory", &RunBenchSim});

}  // namespace
}  // namespace stackcheck::cli
