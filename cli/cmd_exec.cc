// `stackcheck exec [flags] -- PROGRAM [ARGS]`: runs a real OpenMP offload
// program (GCC's real libgomp and nvptx plugin) on the simulated GPU with its
// threads under the simulator's control, once per schedule, with the monitors
// watching (ExploreProgram, properties/program/explore_program.h); each
// distinct violation is shrunk, replayed to check it is deterministic, and
// written as a replay file and token. Exit 0 when every execution was clean,
// 1 on a violation (or a crash, or a thread stuck outside every scheduling
// point), 2 on bad input.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/flag_parser.h"
#include "cli/interrupt.h"
#include "cli/report_sink.h"
#include "properties/json_writer.h"
#include "properties/program/explore_program.h"
#include "properties/program/program_finding.h"
#include "properties/program/scratch_directory.h"

ABSL_FLAG(std::string, exec_strategy, "random",
          "exec: schedules from random, pct, or dfs (every schedule within --exec_bound "
          "preemptions, one after another)");
ABSL_FLAG(int, exec_bound, 1, "exec: the preemption bound of --exec_strategy=dfs (-1 = none)");
ABSL_FLAG(std::string, exec_faults, "search",
          "exec: faults to inject: 'search' (the default: the first execution fault-free, then a "
          "random fault each), 'none', or a plan (abort@launch:N, abort@kernel:NAME:N, "
          "oom@alloc:N, reject@launch:N, comma-separated); dfs: none unless given a plan, or "
          "'search': every plan of up to --exec_max_faults faults, each with every schedule "
          "within the bound");
ABSL_FLAG(int, exec_max_faults, 1,
          "exec: with --exec_faults=search, the faults one plan may hold (1-4): a launch that "
          "traps, a launch rejected, an allocation failing, or an allocation and its retry "
          "failing (the plugin retries once) each count one");
ABSL_FLAG(int, exec_watchdog_s, 20,
          "exec, replay: seconds a program thread may run between two scheduling points before "
          "the run is reported stuck (a stuck finding's replay waits as long again)");
ABSL_FLAG(std::string, libcuda, "",
          "exec, replay, bench exec: the simulated libcuda.so.1 to preload");
ABSL_FLAG(int, exec_shrink_executions, 200, "exec: executions the shrinking may take");
ABSL_FLAG(bool, exec_all_findings, true,
          "exec: go on after a violation and report every distinct one (by fingerprint) "
          "found within the budget, each shrunk and replayable (--noexec_all_findings: stop at "
          "the first)");
ABSL_FLAG(std::string, exec_replay_dir, "stackcheck-replays",
          "exec: directory for the replay file of a violation ('' = none)");

namespace stackcheck::cli {
namespace {

using properties::kMaxFaultsPerPlan;
using properties::kMaxPreemptionBound;
using properties::kMaxWatchdogSeconds;
using properties::ProgramFinding;
using properties::ProgramReport;
using properties::ProgramSpec;

// The flags' exploration; a UsageError's message when they are bad.
absl::StatusOr<ProgramSpec> SpecFromFlags(const std::vector<std::string>& args) {
  ProgramSpec spec;
  for (const std::string& a : args) {
    if (a.find('\n') != std::string::npos) {
      return absl::InvalidArgumentError("exec: an argument holds a newline");
    }
  }
  absl::StatusOr<std::string> program = properties::ResolveProgram(args[0]);
  if (!program.ok()) return program.status();
  absl::StatusOr<std::string> lib = properties::FindLibcuda(absl::GetFlag(FLAGS_libcuda));
  if (!lib.ok()) return lib.status();
  spec.program = *program;
  spec.libcuda = *lib;
  spec.args.assign(args.begin() + 1, args.end());
  spec.strategy = absl::GetFlag(FLAGS_exec_strategy);
  if (spec.strategy != "random" && spec.strategy != "pct" && spec.strategy != "dfs") {
    return absl::InvalidArgumentError(
        absl::StrCat("--exec_strategy is random, pct or dfs, not '", spec.strategy, "'"));
  }
  const bool dfs = spec.strategy == "dfs";
  spec.preemption_bound = absl::GetFlag(FLAGS_exec_bound);
  if (spec.preemption_bound < -1 || spec.preemption_bound > kMaxPreemptionBound) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--exec_bound must be in [-1, %d]", kMaxPreemptionBound));
  }
  // A search by default; a depth-first walk covers one plan's schedules, so
  // it injects none unless given one.
  std::string faults = absl::GetFlag(FLAGS_exec_faults);
  if (dfs && !FlagGiven("exec_faults")) faults = "none";
  spec.faults = faults == "search" ? ProgramSpec::Faults::kSearch
                : faults == "none" ? ProgramSpec::Faults::kNone
                                   : ProgramSpec::Faults::kPlan;
  spec.max_faults = absl::GetFlag(FLAGS_exec_max_faults);
  if (spec.max_faults < 1 || spec.max_faults > kMaxFaultsPerPlan) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--exec_max_faults must be in [1, %d]", kMaxFaultsPerPlan));
  }
  if (FlagGiven("exec_max_faults") && spec.faults != ProgramSpec::Faults::kSearch) {
    return absl::InvalidArgumentError(
        "--exec_max_faults has no effect without --exec_faults=search");
  }
  if (spec.faults == ProgramSpec::Faults::kPlan) {
    absl::StatusOr<program::FaultPlan> plan = program::ParseFaults(faults);
    if (!plan.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--exec_faults: ", plan.status().message()));
    }
    spec.plan = *plan;
  }
  return spec;
}

// The budgets and the output's flags.
absl::Status AddBudgets(ProgramSpec* spec) {
  spec->watchdog_s = absl::GetFlag(FLAGS_exec_watchdog_s);
  if (spec->watchdog_s < 1 || spec->watchdog_s > kMaxWatchdogSeconds) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--exec_watchdog_s must be in [1, %d]", kMaxWatchdogSeconds));
  }
  spec->shrink_executions = absl::GetFlag(FLAGS_exec_shrink_executions);
  if (spec->shrink_executions < 0) {
    return absl::InvalidArgumentError("--exec_shrink_executions must be >= 0");
  }
  spec->max_executions = absl::GetFlag(FLAGS_executions);
  if (FlagGiven("time_budget_s")) {
    const double budget_s = absl::GetFlag(FLAGS_time_budget_s);
    if (!(budget_s > 0) || budget_s > 7 * 24 * 3600) {
      return absl::InvalidArgumentError("--time_budget_s must be positive (and under a week)");
    }
    spec->time_budget = absl::Seconds(budget_s);
  }
  spec->seed = absl::GetFlag(FLAGS_seed);
  spec->all_findings = absl::GetFlag(FLAGS_exec_all_findings);
  spec->replay_dir = absl::GetFlag(FLAGS_exec_replay_dir);
  return absl::OkStatus();
}

// What a dfs covered: "exhausted yes" means every schedule within the bound ran.
std::string Coverage(const ProgramSpec& spec, const ProgramReport& r) {
  const std::string plans =
      spec.faults == ProgramSpec::Faults::kSearch
          ? absl::StrFormat(
                ", %u fault plans (none, and every plan of up to %d fault%s: a launch "
                "trapping or rejected, an allocation failing alone or with the next)",
                r.fault_plans, spec.max_faults, spec.max_faults == 1 ? "" : "s")
          : "";
  return absl::StrFormat(
      "dfs, preemption bound %s%s: exhausted %s%s",
      spec.preemption_bound < 0 ? std::string("none") : absl::StrCat(spec.preemption_bound), plans,
      r.exhausted ? "yes" : "no",
      r.exhausted && r.bound_cut ? " (the bound left schedules out)"
      : r.search_stopped.empty() ? ""
                                 : absl::StrCat(" (", r.search_stopped, ")"));
}

void RenderSummary(const ProgramSpec& spec, const ProgramReport& r, ReportSink& report) {
  const bool dfs = spec.strategy == "dfs";
  const double rate = r.executions / std::max(r.seconds, 1e-9);
  const std::string coverage = dfs ? Coverage(spec, r) : "";
  const std::string runs = dfs ? coverage
                               : absl::StrFormat("%s, seeds %u..%u", spec.strategy, spec.seed,
                                                 spec.seed + r.executions - 1);
  const std::string faults_shown =
      spec.faults == ProgramSpec::Faults::kSearch ? (dfs ? "" : ", a random fault each")
      : spec.faults == ProgramSpec::Faults::kPlan ? ", faults " + program::FormatFaults(spec.plan)
                                                  : "";
  // A program that never offloaded was explored on the host alone.
  const std::string offload_shown =
      r.executions > 0 && r.kernels_launched == 0
          ? "; no kernel was launched in the first execution (the regions ran on the host: "
            "OMP_TARGET_OFFLOAD=MANDATORY makes that an error)"
          : "";
  // The program's own exit statuses, when not all 0 (a test's own failure).
  const std::string exits_shown =
      r.program_exit_statuses.empty() || r.program_exit_statuses == std::set<int>{0}
          ? ""
          : absl::StrCat(", the program exited ", absl::StrJoin(r.program_exit_statuses, " or "));
  const std::size_t n = r.findings.size();
  report.Fields(
      n == 0 ? absl::StrFormat("exec %s: %u executions (%s%s), %u distinct traces, no violation%s "
                               "(%.1f s, %.1f executions/s)%s",
                               spec.program, r.executions, runs, faults_shown, r.distinct_traces,
                               exits_shown, r.seconds, rate, offload_shown)
             : absl::StrFormat("exec %s: %u executions (%s%.1f s, %.1f executions/s), %u "
                               "distinct traces, %u finding%s",
                               spec.program, r.executions, dfs ? coverage + ", " : "", r.seconds,
                               rate, r.distinct_traces, n, n == 1 ? "" : "s"),
      [&](properties::JsonWriter& j) {
        j.Key("program").String(spec.program);
        j.Key("executions").Uint(r.executions);
        j.Key("distinct_traces").Uint(r.distinct_traces);
        j.Key("seconds").Double(r.seconds);
        j.Key("executions_per_s").Double(rate);
        j.Key("verdict").String(n == 0 ? "clean" : "violation");
        j.Key("kernels_launched").Uint(r.kernels_launched);  // in the first execution
        j.Key("program_exit_statuses").BeginArray();
        for (int status : r.program_exit_statuses) j.Int(status);
        j.EndArray();
        j.Key("strategy").String(spec.strategy);
        if (dfs) {
          j.Key("preemption_bound").Int(spec.preemption_bound);
          j.Key("exhausted").Bool(r.exhausted);
          j.Key("bound_cut").Bool(r.bound_cut);
          if (spec.faults == ProgramSpec::Faults::kSearch) j.Key("fault_plans").Uint(r.fault_plans);
        }
      });
}

// Stopped early: says so; the exit status of a stop (a signal exits 128 + its
// number, as check does; a count cut short by the time budget fails), or -1.
int RenderStop(const ProgramSpec& spec, const ProgramReport& r, ReportSink& report) {
  const int signal = CaughtSignal();
  if (signal != 0 || r.out_of_time) {
    report.Fields(signal != 0
                      ? absl::StrFormat("INTERRUPTED by signal %d after %u executions; "
                                        "findings are shown as found, not shrunk",
                                        signal, r.executions)
                      : absl::StrFormat("the time budget (%g s) ended the run after %u executions",
                                        absl::ToDoubleSeconds(spec.time_budget), r.executions),
                  [&](properties::JsonWriter& j) {
                    j.Key("interrupted").Bool(signal != 0);
                    j.Key("out_of_time").Bool(signal == 0 && r.out_of_time);
                  });
  }
  // A count given is a count (as campaign's).
  const bool incomplete = signal == 0 && r.out_of_time && spec.strategy != "dfs" &&
                          FlagGiven("executions") && r.executions < spec.max_executions;
  if (incomplete) {
    report.Fields(absl::StrFormat("INCOMPLETE: %u of %u executions explored", r.executions,
                                  spec.max_executions),
                  [](properties::JsonWriter& j) { j.Key("complete").Bool(false); });
  }
  return signal != 0 ? 128 + signal : incomplete ? kExitMismatch : -1;
}

std::string FindingText(const ProgramSpec& spec, const ProgramFinding& f) {
  std::string text;
  absl::StrAppend(&text, "\n", properties::Describe(f.found), "\n");
  absl::StrAppendFormat(
      &text,
      "found at execution %u (%s, after %.1f s); shrunk in %d executions (%.1f s) to %u "
      "scheduling choices, %u preemptions, faults: %s\n",
      f.finding.at_execution,
      spec.strategy == "dfs" ? std::string("dfs") : absl::StrCat("seed ", f.seed), f.found_after_s,
      f.shrink_executions, f.shrink_s, f.replay.schedule.size(), f.shrunk.report.preemptions,
      f.replay.faults.empty() ? "none" : f.replay.faults);
  absl::StrAppend(&text, "shrunk: ", properties::Describe(f.shrunk), "\n",
                  properties::FormatOutcome(f.shrunk, 40), f.replay_check, "\n");
  if (!f.replay_file.empty()) {
    absl::StrAppend(&text, "replay: stackcheck replay ", f.replay_file, " -- ", spec.program, "\n");
  }
  absl::StrAppend(&text, "token: ", f.finding.token, "\n");
  return text;
}

void FindingJson(const ProgramFinding& f, properties::JsonWriter& j) {
  j.BeginObject();
  j.Key("found_at_execution").Uint(f.finding.at_execution);
  j.Key("property").String(f.finding.violation.property);
  j.Key("message").String(f.finding.violation.message);
  j.Key("fingerprint").String(f.finding.violation.fingerprint);
  j.Key("waits").BeginArray();
  for (const sim::WaitLink& w : f.finding.violation.waits) j.String(w.text);
  j.EndArray();
  j.Key("faults").String(f.replay.faults);
  j.Key("schedule_length").Uint(f.replay.schedule.size());
  j.Key("preemptions").Uint(f.shrunk.report.preemptions);
  j.Key("shrink_executions").Int(f.shrink_executions);
  j.Key("found_after_s").Double(f.found_after_s);
  j.Key("shrink_s").Double(f.shrink_s);
  j.Key("replay").String(f.replay_check);
  j.Key("replay_file").String(f.replay_file);
  j.Key("token").String(f.finding.token);
  j.EndObject();
}

int Render(const ProgramSpec& spec, const ProgramReport& r) {
  for (const ProgramFinding& f : r.findings) {
    if (f.replay_file_error.empty()) continue;
    absl::FPrintF(stderr,
                  "stackcheck exec: the replay file was not written (%s); the token below "
                  "replays the finding\n",
                  f.replay_file_error);
  }
  ReportSink report(absl::GetFlag(FLAGS_json), "exec");
  RenderSummary(spec, r, report);
  const int stopped_rc = RenderStop(spec, r, report);
  if (r.findings.empty()) return report.Finish(stopped_rc >= 0 ? stopped_rc : kExitOk);
  std::string text;
  for (const ProgramFinding& f : r.findings) absl::StrAppend(&text, FindingText(spec, f));
  report.Fields(text, [&](properties::JsonWriter& j) {
    j.Key("findings").BeginArray();
    for (const ProgramFinding& f : r.findings) FindingJson(f, j);
    j.EndArray();
  });
  return report.Finish(stopped_rc >= 0 ? stopped_rc : kExitMismatch);
}

int RunExec(const std::vector<std::string>& args) {
  if (args.empty()) return UsageError("usage: exec [flags] -- PROGRAM [ARGS]");
  absl::StatusOr<ProgramSpec> spec = SpecFromFlags(args);
  if (!spec.ok()) return UsageError(spec.status().message());
  if (absl::Status s = AddBudgets(&*spec); !s.ok()) return UsageError(s.message());
  absl::StatusOr<properties::ScratchDirectory> scratch = properties::ScratchDirectory::Make();
  if (!scratch.ok()) return RunError(scratch.status().message());
  const RemovedOnAbort scratch_on_abort(scratch->path());
  spec->scratch = scratch->path();
  // The first SIGINT/SIGTERM, or the budget, stops the execution in progress
  // within a moment; what was covered is reported (findings unshrunk).
  spec->interrupt = StopOnSignals();
  const double progress_every = isatty(STDERR_FILENO) ? 2 : 10;
  double next_progress = progress_every;
  spec->on_progress = [&](std::uint64_t done, std::size_t traces, std::size_t findings,
                          double seconds) {
    if (seconds < next_progress) return;
    next_progress = seconds + progress_every;
    absl::FPrintF(stderr, "exec: %u executions, %.1f/s, %u distinct traces, %u findings, %.0f s\n",
                  done, done / seconds, traces, findings, seconds);
  };
  const ProgramReport r = properties::ExploreProgram(*spec);
  if (!r.status.ok()) {
    if (!r.output.empty()) std::fprintf(stderr, "%s", r.output.c_str());
    if (absl::IsInvalidArgument(r.status)) {
      return UsageError(absl::StrCat("exec: ", r.status.message(),
                                     r.output.empty() ? "" : " (see its output above)"));
    }
    return RunError(absl::StrCat("exec: ", r.status.message()));
  }
  return Render(*spec, r);
}

const bool registered = RegisterCommand(
    {"exec",
     "exec [--executions=N] [--exec_strategy=random|pct|dfs] [--exec_bound=K] "
     "[--exec_faults=PLAN|search] "
     "[--libcuda=PATH] -- PROGRAM [ARGS]",
     "run a real OpenMP offload program on the simulated GPU, its threads explored", &RunExec});

}  // namespace
}  // namespace stackcheck::cli
