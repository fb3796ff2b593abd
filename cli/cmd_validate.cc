// `stackcheck validate --backend=cuda`: every policy x the standard hardware
// scenarios on the GPU, compared with the simulator's search of the same
// scenarios (hardware/side_by_side.h), one row per policy, scenario and property
// (hardware/backend_compare.h): "confirmed on hardware", "not reached" (the
// simulator found it, the GPU's few runs did not), "not steerable", or
// MISMATCH when the GPU shows a violation the simulator's search of that
// scenario did not find, or a steerable simulator counterexample does not
// reproduce on the GPU. Every simulator counterexample is steered onto the
// GPU. Exit 1 on a MISMATCH (or a row neither backend could judge), or when
// there is no GPU to run on.
//
// --backend=sim runs the simulator column alone (anywhere), judged against
// the expected verdicts: an expected violation the fixed scenarios did not
// show is "not reached"; exit 1 when a property expected to hold is violated
// or a search failed (MISMATCH). --json prints one JSON object with
// the same results (the steered replay and the SEM probes too), described
// once for both renderings (ReportSink).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/report_sink.h"
#include "cli/validate_json.h"
#include "core/policies/registry.h"
#include "hardware/sem_probes.h"
#include "hardware/side_by_side.h"
#include "hardware/steered_replay.h"
#include "properties/json_writer.h"
#include "properties/scenarios.h"
#include "properties/verdict_table.h"
#include "real/cuda_entry_points.h"

ABSL_FLAG(std::string, backend, "cuda",
          "validate, bench launch: cuda (the GPU, via the driver) or sim "
          "(validate: the simulator column alone)");
ABSL_FLAG(std::string, validate_policies, "", "validate: comma-separated policies (default: all)");
ABSL_FLAG(std::string, validate_scenarios, "",
          "validate: comma-separated hardware scenarios (default: all)");
ABSL_FLAG(int, validate_repeat, 3,
          "validate: hardware runs per policy and scenario (run 0 free, the "
          "others with random delays)");
ABSL_FLAG(double, validate_jitter, 0.3,
          "validate: probability of a random delay at each scheduling point");
ABSL_FLAG(int, validate_max_delay_us, 2000, "validate: longest random delay, microseconds");
ABSL_FLAG(double, validate_watchdog_s, 3,
          "validate: seconds past a run's kernel time before it is a hang");
ABSL_FLAG(int, validate_sim_executions, 100,
          "validate: random simulator executions per policy and scenario, when "
          "DPOR does not exhaust the scenario within --validate_sim_dpor_budget");
ABSL_FLAG(int64_t, validate_sim_dpor_budget, 20000,
          "validate: DPOR executions per policy and scenario before falling back "
          "to random schedules (0: random only)");
ABSL_FLAG(int, validate_steer_runs, 3,
          "validate --backend=cuda: GPU runs per simulator counterexample, "
          "steered towards its schedule (0: no steering)");
ABSL_FLAG(bool, validate_campaign, true,
          "validate: run the policy x scenario campaign (--novalidate_campaign: "
          "only the SEM probes)");
ABSL_FLAG(bool, validate_sem_probes, true,
          "validate --backend=cuda: also run one hardware probe per SEM rule");
ABSL_FLAG(bool, validate_in_process, false,
          "validate: run the one --validate_policies x --validate_scenarios pair in "
          "this process and exit with the runtime's status (for compute-sanitizer)");
ABSL_FLAG(std::string, validate_replay, "",
          "validate: instead of the campaign, run this simulator counterexample "
          "(replay file or token) on the GPU --validate_repeat times");
ABSL_FLAG(std::string, validate_spawn_delays_ms, "",
          "validate --validate_replay: comma-separated start delays of the "
          "scenario's threads, in ms (steering towards the counterexample)");
ABSL_FLAG(int, validate_min_kernel_us, 0,
          "validate --validate_replay: stretch every kernel to at least this long");
ABSL_FLAG(bool, validate_details, false, "validate: print every hardware run's raw observations");

namespace stackcheck::cli {
namespace {

// The campaign's options from the flags; InvalidArgument says which is wrong.
absl::StatusOr<hardware::SideBySideOptions> OptionsFromFlags() {
  hardware::SideBySideOptions options;
  const std::string backend = absl::GetFlag(FLAGS_backend);
  if (backend != "cuda" && backend != "sim") {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown backend '%s' (cuda or sim)", backend));
  }
  options.hardware = backend == "cuda";
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_validate_policies), ',', absl::SkipEmpty())) {
    const PolicyInfo* p = FindPolicy(name);
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("unknown policy '%s'", name));
    }
    options.policies.push_back(p);
  }
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_validate_scenarios), ',', absl::SkipEmpty())) {
    const properties::NamedScenario* s = properties::FindHardwareScenario(name);
    if (s == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("unknown scenario '%s'", name));
    }
    options.scenarios.push_back(s);
  }
  options.hardware_repeat = absl::GetFlag(FLAGS_validate_repeat);
  options.jitter_probability = absl::GetFlag(FLAGS_validate_jitter);
  options.jitter_max_delay = absl::Microseconds(absl::GetFlag(FLAGS_validate_max_delay_us));
  options.watchdog = absl::Seconds(absl::GetFlag(FLAGS_validate_watchdog_s));
  options.sim_executions = absl::GetFlag(FLAGS_validate_sim_executions);
  const std::int64_t dpor_budget = absl::GetFlag(FLAGS_validate_sim_dpor_budget);
  options.sim_dpor_budget = dpor_budget > 0 ? static_cast<std::uint64_t>(dpor_budget) : 0;
  options.steer_runs = absl::GetFlag(FLAGS_validate_steer_runs);
  if (dpor_budget < 0 || options.steer_runs < 0) {
    return absl::InvalidArgumentError("validate: the DPOR budget and steer runs must be >= 0");
  }
  if (options.hardware_repeat < 1 || options.sim_executions < 1 || options.jitter_probability < 0 ||
      options.jitter_probability > 1 || options.watchdog <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "validate: repeat and sim executions must be >= 1, jitter in [0,1], watchdog > 0");
  }
  return options;
}

// --validate_replay: one simulator counterexample, steered onto the GPU.
int RunSteeredReplay(const hardware::SideBySideOptions& options, ReportSink& out) {
  hardware::SteeredReplayOptions steer;
  steer.runs = options.hardware_repeat;
  steer.run.watchdog = options.watchdog;
  steer.run.min_kernel_duration = absl::Microseconds(absl::GetFlag(FLAGS_validate_min_kernel_us));
  for (absl::string_view ms :
       absl::StrSplit(absl::GetFlag(FLAGS_validate_spawn_delays_ms), ',', absl::SkipEmpty())) {
    int value = 0;
    if (!absl::SimpleAtoi(ms, &value) || value < 0) {
      return UsageError(absl::StrFormat("bad delay '%s' in --validate_spawn_delays_ms", ms));
    }
    steer.run.spawn_delays.push_back(absl::Milliseconds(value));
  }
  absl::StatusOr<hardware::SteeredReplayResult> r =
      hardware::ReplayOnHardware(absl::GetFlag(FLAGS_validate_replay), steer);
  if (!r.ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", r.status().message());
    return kExitMismatch;
  }
  out.Fields(hardware::FormatSteeredReplay(*r, steer), [&r](properties::JsonWriter& j) {
    j.Key("backend").String("cuda");
    j.Key("steered_replay");
    WriteSteeredReplayJson(*r, j);
  });
  return out.Finish(r->reproduced > 0 ? kExitOk : kExitMismatch);
}

// --validate_in_process: the one pair in this process; the runtime's exit
// status is the result.
int RunInProcess(const hardware::SideBySideOptions& options) {
  hardware::HardwareRunOptions run;
  run.in_process = true;
  absl::PrintF("validate: %s / %s in this process; the exit status is the runtime's\n",
               options.policies[0]->name, options.scenarios[0]->name);
  std::fflush(stdout);
  absl::StatusOr<hardware::HardwareRunResult> r =
      hardware::RunOnHardware(options.scenarios[0]->scenario, *options.policies[0], run);
  absl::FPrintF(stderr, "stackcheck: %s\n", r.status().message());  // not reached
  return kExitMismatch;
}

// The SEM probes: text after `lead`, JSON as "sem_probes".
void DescribeSemProbes(const std::vector<hardware::SemProbeResult>& probes, absl::string_view lead,
                       ReportSink& out) {
  out.Fields(absl::StrCat(lead,
                          "SEM probes on the GPU (each in its own process), beside the "
                          "simulator's test of the same rule:\n",
                          hardware::FormatSemProbes(probes)),
             [&probes](properties::JsonWriter& j) {
               j.Key("sem_probes");
               WriteSemProbesJson(probes, j);
             });
}

// The campaign: its settings, the table (the simulator beside the GPU, or
// the simulator's column against the expected verdicts), each scenario's
// outcome, and the SEM probes when they ran.
void DescribeCampaign(const hardware::SideBySideOptions& options,
                      const hardware::SideBySideResult& result,
                      const std::vector<hardware::SemProbeResult>* probes, ReportSink& out) {
  std::string header = absl::StrFormat(
      "stackcheck validate: %d policies x %d scenarios; columns: %s\n"
      "(sim: DPOR over each scenario's schedules, exhaustive when it ends within "
      "%d executions, else %d random schedules on top",
      options.policies.empty() ? AllPolicies().size() : options.policies.size(),
      options.scenarios.empty() ? properties::HardwareScenarios().size() : options.scenarios.size(),
      options.hardware ? "sim | cuda" : "sim", options.sim_dpor_budget, options.sim_executions);
  if (options.hardware) {
    absl::StrAppendFormat(&header,
                          "; cuda: %d runs each, run 0 free, the others with random delays p=%.2f "
                          "up to %d us; watchdog %.1f s past the kernels' time; each simulator "
                          "counterexample steered %d times",
                          options.hardware_repeat, options.jitter_probability,
                          absl::GetFlag(FLAGS_validate_max_delay_us),
                          absl::ToDoubleSeconds(options.watchdog), options.steer_runs);
  }
  absl::StrAppend(&header, ")\n\n");
  out.Fields(header, [&](properties::JsonWriter& j) {
    j.Key("backend").String(options.hardware ? "cuda" : "sim");
    j.Key("sim_executions").Int(options.sim_executions);
    j.Key("sim_dpor_budget").Uint(options.sim_dpor_budget);
    if (options.hardware) {
      j.Key("hardware_repeat").Int(options.hardware_repeat);
      j.Key("steer_runs").Int(options.steer_runs);
      j.Key("backends_agree").Bool(!hardware::BackendsDisagree(result));
    }
  });
  const std::string table =
      options.hardware ? absl::StrCat(
                             "The simulator beside the GPU, per policy, scenario and property "
                             "(MISMATCH: the GPU shows what the simulator's search of the scenario "
                             "did not find, or a steerable simulator counterexample did not "
                             "reproduce):\n",
                             hardware::FormatComparison(result))
                       : properties::FormatVerdictTable(result.table);
  out.Fields(
      absl::StrCat(table,
                   "\nPer scenario (violated properties; => the rows that are not "
                   "'holds on both'):\n",
                   hardware::FormatScenarioMatrix(result, absl::GetFlag(FLAGS_validate_details))),
      [&result](properties::JsonWriter& j) { WriteSideBySideJson(result, j); });
  if (probes != nullptr) DescribeSemProbes(*probes, "\n", out);
}

std::vector<hardware::SemProbeResult> RunSemProbesAnnounced() {
  absl::FPrintF(stderr, "validate: SEM probes\n");
  return hardware::RunSemProbes();
}

int RunValidate(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("validate takes no arguments");
  absl::StatusOr<hardware::SideBySideOptions> parsed = OptionsFromFlags();
  if (!parsed.ok()) return UsageError(parsed.status().message());
  hardware::SideBySideOptions& options = *parsed;
  const bool in_process = absl::GetFlag(FLAGS_validate_in_process);
  const bool json = absl::GetFlag(FLAGS_json);
  if (json && in_process) {
    return UsageError(
        "--json does not apply to --validate_in_process (its result is "
        "the exit status)");
  }
  if (in_process &&
      (!options.hardware || options.policies.size() != 1 || options.scenarios.size() != 1)) {
    return UsageError("--validate_in_process needs --backend=cuda, one policy and one scenario");
  }
  const bool steered_replay = !absl::GetFlag(FLAGS_validate_replay).empty();
  if (steered_replay && !options.hardware) {
    return UsageError("--validate_replay needs --backend=cuda");
  }
  const bool campaign = absl::GetFlag(FLAGS_validate_campaign);
  if (!campaign && !steered_replay && !in_process && !options.hardware) {
    return UsageError("--novalidate_campaign needs --backend=cuda");
  }
  if (options.hardware) {
    // Only dlopen here: the runs fork, and CUDA must not be initialised
    // before a fork.
    absl::StatusOr<const real::CudaEntryPoints*> driver = real::LoadDriver();
    if (!driver.ok()) return RunError(driver.status().message());
  }
  ReportSink out(json, "validate");
  if (steered_replay) return RunSteeredReplay(options, out);
  if (in_process) return RunInProcess(options);
  options.progress = [](const std::string& line) {
    if (line.rfind("sim: ", 0) == 0) return;  // fast; only the GPU's are news
    absl::FPrintF(stderr, "validate: %s\n", line);
  };
  if (!campaign) {
    out.Fields("", [](properties::JsonWriter& j) { j.Key("backend").String("cuda"); });
    DescribeSemProbes(hardware::RunSemProbes(), "", out);
    return out.Finish(kExitOk);
  }
  absl::StatusOr<hardware::SideBySideResult> result = hardware::RunSideBySide(options);
  if (!result.ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", result.status().message());
    return kExitMismatch;
  }
  std::vector<hardware::SemProbeResult> probes;
  const bool probes_too = options.hardware && absl::GetFlag(FLAGS_validate_sem_probes);
  if (probes_too) probes = RunSemProbesAnnounced();
  DescribeCampaign(options, *result, probes_too ? &probes : nullptr, out);
  // On the GPU the backends are compared with each other; the simulator
  // column alone is judged against the expected verdicts, where an expected
  // violation the fixed scenarios do not provoke is "not reached", no
  // failure, and a violation of a property expected to hold, or a search
  // that failed, is.
  const bool agree =
      options.hardware ? !hardware::BackendsDisagree(*result) : properties::AllMatch(result->table);
  return out.Finish(agree ? kExitOk : kExitMismatch);
}

const bool registered = RegisterCommand(
    {"validate", "validate [--backend=cuda|sim] [--validate_policies=P,...] [--validate_repeat=N]",
     "every policy x the hardware scenarios on the GPU, beside the simulator's verdicts",
     &RunValidate});

}  // namespace
}  // namespace stackcheck::cli
