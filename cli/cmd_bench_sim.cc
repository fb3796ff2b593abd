// `stackcheck bench sim`: how fast the simulator explores, and that its
// memory stays flat. Two scenarios run through the real runtime under the
// v2-gcc11 policy with random schedules, on one core:
//   standard  2 host threads x 4 target regions, no faults
//   peer      2 host threads x 2 regions whose blocks are 1 or 2 units, so
//             the cached block grows
// Prints, per scenario, `steps_per_s NAME N` and `executions_per_s NAME N`
// (per CPU-second of the one thread that runs them), and peak RSS after a
// tenth of the executions and after all of them; --json prints one JSON
// object with the same figures.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "core/scenario_runner.h"
#include "properties/json_writer.h"
#include "sim/simulator.h"
#include "sim/strategies/random_strategy.h"

ABSL_FLAG(std::uint64_t, bench_executions, 1000000,
          "bench sim: executions per scenario (RSS is also sampled at a tenth)");
ABSL_FLAG(std::uint64_t, bench_seed, 1, "bench sim: seed of the random schedules");
ABSL_FLAG(std::string, bench_only, "",
          "bench sim: run only the scenario with this name (e.g. peer+exit)");

namespace stackcheck::cli {
namespace {

// The measured scenarios end by returning from main (close_at_end = false:
// the runtime is destroyed normally). Their "+exit" variants close the device
// through Host::Exit as libgcc does, which costs one C++ unwind of the main
// thread's stack per execution.
Scenario Standard() {
  Scenario s;
  s.close_at_end = false;
  RegionId next = 1;
  for (int t = 0; t < 2; ++t) {
    ThreadProgram program;
    for (int r = 0; r < 4; ++r) {
      program.ops.push_back(HostOp::Run(next++, /*teams=*/2, /*warps=*/2));
    }
    s.threads.push_back(program);
  }
  return s;
}

Scenario Peer() {
  Scenario s;
  s.close_at_end = false;
  RegionId next = 1;
  for (int t = 0; t < 2; ++t) {
    ThreadProgram program;
    for (std::uint32_t units : {1u, 2u}) {
      // One unit = one warp's 128 KiB slot.
      program.ops.push_back(HostOp::Run(next++, /*teams=*/units, /*warps=*/1));
    }
    s.threads.push_back(program);
  }
  return s;
}

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
  std::uint64_t executions = 0;
  std::uint64_t steps = 0;
  std::uint64_t violations = 0;
  double cpu_s = 0;
  double wall_s = 0;
  std::uint64_t checkpoint = 0;  // executions at the first RSS sample (0: none)
  long rss_checkpoint_kib = 0;
  long rss_end_kib = 0;
};

SimFigures Bench(const char* name, const Scenario& scenario, const PolicyInfo& policy,
                 std::uint64_t executions, std::uint64_t seed) {
  sim::Simulator simulator;
  sim::RandomStrategy strategy(sim::RandomStrategy::Options{seed, 0, 0});
  SimFigures f;
  f.name = name;
  f.executions = executions;
  f.checkpoint = executions / 10;
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ThreadCpuSeconds();
  for (std::uint64_t i = 1; i <= executions; ++i) {
    strategy.NewExecution();
    const sim::ExecutionResult& r = simulator.Run(
        strategy, [&](Device& device, Host& host, RuntimeObserver& observer) {
          RunScenario(scenario, device, host, observer, policy);
        });
    f.steps += r.steps;
    f.violations += r.violation.has_value();
    if (i == f.checkpoint) f.rss_checkpoint_kib = PeakRssKib();
  }
  f.cpu_s = ThreadCpuSeconds() - cpu_start;
  f.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.rss_end_kib = PeakRssKib();
  return f;
}

void PrintText(const SimFigures& f) {
  const char* name = f.name.c_str();
  absl::PrintF("steps_per_s %s %.0f\n", name, f.steps / f.cpu_s);
  absl::PrintF("executions_per_s %s %.0f\n", name, f.executions / f.cpu_s);
  absl::PrintF("cpu_s %s %.3f (wall %.3f)\n", name, f.cpu_s, f.wall_s);
  absl::PrintF("steps_per_execution %s %.1f\n", name,
               static_cast<double>(f.steps) / f.executions);
  absl::PrintF("violations %s %d\n", name, f.violations);
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
  auto with_exit = [](Scenario s) {
    s.close_at_end = true;
    return s;
  };
  const std::pair<const char*, Scenario> scenarios[] = {
      {"standard", Standard()},
      {"peer", Peer()},
      {"standard+exit", with_exit(Standard())},
      {"peer+exit", with_exit(Peer())},
  };
  bool known = only.empty();
  for (const auto& entry : scenarios) known |= only == entry.first;
  if (!known) return UsageError(absl::StrFormat("no scenario named '%s'", only));
  const bool json = absl::GetFlag(FLAGS_json);
  properties::JsonWriter out;
  if (json) {
    out.BeginObject();
    out.Key("command").String("bench sim");
    out.Key("policy").String(policy->name);
    out.Key("seed").Uint(seed);
    out.Key("scenarios").BeginArray();
  } else {
    absl::PrintF("# one core, random schedules, policy %s, %d executions each\n",
                 policy->name, executions);
  }
  int rc = kExitOk;
  for (const auto& [name, scenario] : scenarios) {
    if (!only.empty() && only != name) continue;
    const SimFigures f = Bench(name, scenario, *policy, executions, seed);
    // The policy and scenarios are fixed and clean: a violation is a bug of
    // the engine or the runtime.
    if (f.violations != 0) rc = kExitMismatch;
    if (json) {
      WriteJson(f, out);
    } else {
      PrintText(f);
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
