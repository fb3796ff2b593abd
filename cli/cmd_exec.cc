// `stackcheck exec [flags] -- PROGRAM [ARGS]`: runs a real OpenMP offload
// program (GCC's real libgomp and nvptx plugin) on the simulated GPU with its
// threads under the simulator's control, once per schedule, with the monitors
// watching; the first violation is shrunk (fewer preemptions, no fault if it
// is not needed), replayed to check it is deterministic, and written as a
// replay file and token. Exit 0 when every execution was clean, 1 on a
// violation (or a crash, or a thread stuck outside every scheduling point),
// 2 on bad input.
#include "cli/cmd_exec.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/exec_fault_plans.h"
#include "cli/exec_replay_file.h"
#include "cli/exec_runner.h"
#include "cli/exec_schedule_tree.h"
#include "cli/exec_steering.h"
#include "cli/flag_parser.h"
#include "cli/interrupt.h"
#include "cli/report_sink.h"
#include "properties/atomic_file.h"
#include "properties/json_writer.h"

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

namespace fs = std::filesystem;
using program::ExecReport;
using program::FaultPlan;

// What an execution showed, comparable across executions.
struct Finding {
  std::string property;
  std::string fingerprint;
  // One bug, whichever fault started it: a trap, a rejected launch or an
  // allocation failure under the same locks end in the same state, so the
  // fingerprint's closing "; fault KIND" does not tell findings apart.
  bool operator==(const Finding& o) const {
    return property == o.property && Bug(fingerprint) == Bug(o.fingerprint);
  }
  static absl::string_view Bug(absl::string_view fingerprint) {
    const std::size_t fault = fingerprint.rfind("; fault ");
    return fault == absl::string_view::npos ? fingerprint : fingerprint.substr(0, fault);
  }
};

bool Violated(const RunOutcome& o) {
  return o.kind != RunOutcome::Kind::kFinished || o.report.verdict != "clean" ||
         !o.report.replay_status.empty();
}

// A run that did not finish is its own kind of violation.
Finding FindingOf(const RunOutcome& o) {
  switch (o.kind) {
    case RunOutcome::Kind::kCrashed:
      return {"no-crash", absl::StrCat("signal ", o.exit_status)};
    case RunOutcome::Kind::kTimedOut:
      return {"progress", "killed after the watchdog's margin"};
    case RunOutcome::Kind::kStartFailed:
      return {"start", absl::StrCat("exit ", o.exit_status)};
    case RunOutcome::Kind::kInternalError:
      return {"internal-error", "a fault in stackcheck's library"};
    case RunOutcome::Kind::kStopped:
      return {"stopped", ""};
    case RunOutcome::Kind::kFinished:
      break;
  }
  return {o.report.property, o.report.fingerprint};
}

std::string Describe(const RunOutcome& o) {
  switch (o.kind) {
    case RunOutcome::Kind::kCrashed:
      return absl::StrCat("CRASH: the program died with signal ", o.exit_status);
    case RunOutcome::Kind::kTimedOut:
      return "STUCK: the program did not end, even after the watchdog; killed";
    case RunOutcome::Kind::kStartFailed:
      return absl::StrCat("the program exited with status ", o.exit_status, " without a result");
    case RunOutcome::Kind::kInternalError:
      return "FAULT IN STACKCHECK'S LIBRARY, not in the program's code: an internal error of "
             "stackcheck's, or a bad pointer passed to the driver (the backtrace is above)";
    case RunOutcome::Kind::kStopped:
      return "stopped by a signal or the time budget before it ended";
    case RunOutcome::Kind::kFinished:
      break;
  }
  return program::OneLine(o.report);
}

// How many launches and allocations an execution made (the fault search's
// range), from its call log.
void CountCalls(const ExecReport& r, std::uint32_t* launches, std::uint32_t* allocs) {
  *launches = *allocs = 0;
  for (const std::string& line : r.calls) {
    if (absl::StrContains(line, " cuLaunchKernel(")) ++*launches;
    if (absl::StrContains(line, " cuMemAlloc_v2(")) ++*allocs;
  }
}

// Makes the counterexample smaller while it shows the same finding: the
// shortest prefix of its schedule (the rest without preemptions), then each
// preemption left undone where it can be, then the fault dropped if the bug
// does not need it.
class Shrinker {
 public:
  Shrinker(const ProgramUnderTest& program, int budget) : program_(program), budget_(budget) {}

  RunOutcome Shrink(const RunOutcome& found, const FaultPlan& faults, FaultPlan* kept) {
    target_ = FindingOf(found);
    best_ = found;
    *kept = faults;
    if (found.kind != RunOutcome::Kind::kFinished) return best_;
    std::vector<std::uint64_t> seq = found.report.sequence;
    // Shortest prefix (binary search; a shorter prefix that still shows the
    // finding is kept whatever lies between).
    std::size_t lo = 0, hi = seq.size();
    while (lo < hi && budget_ > 0) {
      const std::size_t mid = lo + (hi - lo) / 2;
      std::vector<std::uint64_t> prefix(seq.begin(), seq.begin() + mid);
      if (Try(prefix, *kept)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    seq.resize(hi);
    for (std::size_t i = seq.size(); i-- > 0 && budget_ > 0;) {
      if (seq[i] == 0) continue;
      std::vector<std::uint64_t> fewer = seq;
      fewer[i] = 0;
      if (Try(fewer, *kept)) seq = fewer;
    }
    if (!kept->empty() && budget_ > 0 && Try(seq, FaultPlan{})) *kept = FaultPlan{};
    return best_;
  }

  int executions() const { return executions_; }

 private:
  bool Try(const std::vector<std::uint64_t>& sequence, const FaultPlan& faults) {
    --budget_;
    ++executions_;
    RunSettings s;
    s.strategy = "sequence";
    s.schedule = sequence;
    s.faults = faults;
    absl::StatusOr<RunOutcome> o = RunOnce(program_, s);
    if (o.ok() && o->kind == RunOutcome::Kind::kStopped) {
      budget_ = 0;  // a signal or the budget: keep what is shrunk so far
      return false;
    }
    if (!o.ok() || !Violated(*o) || !(FindingOf(*o) == target_)) return false;
    if (o->report.preemptions > best_.report.preemptions) return false;
    best_ = *std::move(o);
    return true;
  }

  const ProgramUnderTest& program_;
  int budget_;
  int executions_ = 0;
  Finding target_;
  RunOutcome best_;
};

// What a finished run showed, for people: the wait-for cycle, the
// fingerprint, the timeline's last events, the calls and the output.
std::string FormatOutcome(const RunOutcome& o, std::size_t timeline_tail) {
  const ExecReport& r = o.report;
  std::string out;
  if (!r.waits.empty()) {
    absl::StrAppend(&out, r.waits_form_cycle ? "wait-for cycle" : "waits (no cycle)", ":\n");
    for (const std::string& w : r.waits) absl::StrAppend(&out, "  ", w, "\n");
  }
  if (!r.fingerprint.empty()) absl::StrAppend(&out, "fingerprint: ", r.fingerprint, "\n");
  if (!r.timeline.empty()) {
    const std::size_t from =
        r.timeline.size() > timeline_tail ? r.timeline.size() - timeline_tail : 0;
    absl::StrAppendFormat(&out, "timeline (%s%u events):\n", from > 0 ? "last " : "",
                          r.timeline.size() - from);
    for (std::size_t i = from; i < r.timeline.size(); ++i) {
      absl::StrAppend(&out, "  ", program::FormatTimelineEvent(r.timeline[i]), "\n");
    }
  }
  if (!r.calls.empty()) {
    const std::size_t from = r.calls.size() > 16 ? r.calls.size() - 16 : 0;
    absl::StrAppendFormat(&out, "calls (%s%u, real names):\n", from > 0 ? "last " : "",
                          r.calls.size() - from);
    for (std::size_t i = from; i < r.calls.size(); ++i)
      absl::StrAppend(&out, "  ", r.calls[i], "\n");
  }
  if (!o.output.empty()) {
    absl::StrAppend(&out, "program output (last lines):\n");
    std::string tail = o.output;
    if (tail.size() > 1200) tail = tail.substr(tail.size() - 1200);
    for (absl::string_view line : absl::StrSplit(tail, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&out, "  | ", line, "\n");
    }
  }
  return out;
}

// An executable regular file: a directory is "executable" to access(2).
bool IsProgram(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

absl::StatusOr<std::string> ResolveProgram(const std::string& name) {
  if (name.empty()) return absl::InvalidArgumentError("the program's name is empty");
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    if (fs::is_directory(name, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(name, " is a directory, not a program"));
    }
    if (!IsProgram(name)) return absl::NotFoundError(absl::StrCat("cannot execute ", name));
    return fs::absolute(name).string();
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "", ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (IsProgram(candidate)) return candidate;
  }
  return absl::NotFoundError(absl::StrCat("no program '", name, "' on PATH"));
}

// Writes the replay file; returns its path ("" when --exec_replay_dir is "").
absl::StatusOr<std::string> SaveReplay(const ExecReplay& replay) {
  const std::string dir = absl::GetFlag(FLAGS_exec_replay_dir);
  if (dir.empty()) return std::string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string path = absl::StrFormat(
      "%s/exec-%s-%016x.replay", dir, fs::path(replay.program).filename().string(), replay.digest);
  if (absl::Status s = properties::WriteFileAtomically(path, FormatExecReplay(replay)); !s.ok()) {
    return s;
  }
  return path;
}

int RunExec(const std::vector<std::string>& args) {
  if (args.empty()) return UsageError("usage: exec [flags] -- PROGRAM [ARGS]");
  for (const std::string& a : args) {
    if (a.find('\n') != std::string::npos) return UsageError("exec: an argument holds a newline");
  }
  absl::StatusOr<std::string> program_path = ResolveProgram(args[0]);
  if (!program_path.ok()) return UsageError(program_path.status().message());
  absl::StatusOr<std::string> lib = FindLibcuda(absl::GetFlag(FLAGS_libcuda));
  if (!lib.ok()) return UsageError(lib.status().message());
  const std::string strategy = absl::GetFlag(FLAGS_exec_strategy);
  if (strategy != "random" && strategy != "pct" && strategy != "dfs") {
    return UsageError(absl::StrCat("--exec_strategy is random, pct or dfs, not '", strategy, "'"));
  }
  const bool dfs = strategy == "dfs";
  const int bound = absl::GetFlag(FLAGS_exec_bound);
  if (bound < -1 || bound > 1000) return UsageError("--exec_bound must be in [-1, 1000]");
  // A search by default; a depth-first walk covers one plan's schedules, so it
  // injects none unless given one.
  std::string faults_flag = absl::GetFlag(FLAGS_exec_faults);
  if (dfs && !FlagGiven("exec_faults")) faults_flag = "none";
  if (faults_flag == "none") faults_flag.clear();
  const bool fault_search = faults_flag == "search";
  const int max_faults = absl::GetFlag(FLAGS_exec_max_faults);
  if (max_faults < 1 || max_faults > 4) return UsageError("--exec_max_faults must be in [1, 4]");
  if (FlagGiven("exec_max_faults") && !fault_search) {
    return UsageError("--exec_max_faults has no effect without --exec_faults=search");
  }
  FaultPlan fixed;
  if (!fault_search) {
    absl::StatusOr<FaultPlan> plan = program::ParseFaults(faults_flag);
    if (!plan.ok()) return UsageError(absl::StrCat("--exec_faults: ", plan.status().message()));
    fixed = *plan;
  }
  const int watchdog = absl::GetFlag(FLAGS_exec_watchdog_s);
  if (watchdog < 1 || watchdog > 3600) return UsageError("--exec_watchdog_s must be in [1, 3600]");
  const int shrink_budget = absl::GetFlag(FLAGS_exec_shrink_executions);
  if (shrink_budget < 0) return UsageError("--exec_shrink_executions must be >= 0");
  std::uint64_t executions = absl::GetFlag(FLAGS_executions);
  // A search runs until its tree ends unless a budget stops it first.
  if (executions == 0) executions = dfs ? 1000000 : 100;
  double budget_s = 0;
  if (FlagGiven("time_budget_s")) {
    budget_s = absl::GetFlag(FLAGS_time_budget_s);
    if (!(budget_s > 0) || budget_s > 7 * 24 * 3600) {
      return UsageError("--time_budget_s must be positive (and under a week)");
    }
  }
  absl::StatusOr<ScratchDirectory> scratch = ScratchDirectory::Make();
  if (!scratch.ok()) return RunError(scratch.status().message());

  // Recorded in each replay, which then runs only this build of it.
  absl::StatusOr<std::string> identity = ProgramIdentity(*program_path);
  if (!identity.ok()) return UsageError(identity.status().message());
  const std::string program_id = *identity;
  ProgramUnderTest program{*lib, *program_path,
                           std::vector<std::string>(args.begin() + 1, args.end()), watchdog,
                           scratch->path()};
  const std::uint64_t seed = absl::GetFlag(FLAGS_seed);
  const bool json = absl::GetFlag(FLAGS_json);
  // The first SIGINT/SIGTERM, or the budget, stops the execution in progress
  // within a moment; what was covered is reported (findings unshrunk).
  const std::atomic<bool>* stop = StopOnSignals();
  const auto start = std::chrono::steady_clock::now();
  program.stop = stop;
  if (budget_s > 0) {
    program.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(budget_s));
  }
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double progress_every = isatty(STDERR_FILENO) ? 2 : 10;
  double next_progress = progress_every;

  std::uint32_t launches = 0, allocs = 0;
  std::set<std::uint64_t> digests;
  std::set<int> program_exits;  // the program's exit statuses (-1: it did not exit)
  std::uint64_t done = 0;
  struct Found {
    RunOutcome outcome;
    FaultPlan faults;
    std::uint64_t execution = 0;
    double found_after_s = 0;  // since the run began
  };
  std::vector<Found> found;
  const bool all_findings = absl::GetFlag(FLAGS_exec_all_findings);
  ScheduleTree tree(bound);
  bool exhausted = false;
  // dfs with 'search': every plan of EveryPlan, each walked to its end, the
  // fault-free one first (its counts list the others).
  FaultPlan dfs_faults = fixed;
  std::vector<FaultPlan> plans_left;
  bool plans_listed = false;
  std::size_t plans_walked = 1;
  bool bound_cut = false;
  std::string search_stopped;  // why a dfs ended before its tree did
  for (std::uint64_t i = 0; i < executions; ++i) {
    if (stop->load() || (budget_s > 0 && elapsed() > budget_s)) break;
    RunSettings settings;
    settings.strategy = strategy;
    settings.seed = seed + i;
    settings.faults =
        fault_search ? (i == 0 ? FaultPlan{} : RandomPlan(seed + i, launches, allocs, max_faults))
                     : fixed;
    if (dfs) {
      std::optional<std::vector<std::uint64_t>> next = tree.Next();
      while (!next && fault_search && done > 0) {
        if (!plans_listed) {
          absl::StatusOr<std::vector<FaultPlan>> every = EveryPlan(launches, allocs, max_faults);
          if (!every.ok()) return UsageError(every.status().message());
          plans_left = *std::move(every);
          std::reverse(plans_left.begin(), plans_left.end());
          plans_listed = true;
        }
        if (plans_left.empty()) break;
        dfs_faults = plans_left.back();
        plans_left.pop_back();
        ++plans_walked;
        bound_cut |= tree.bound_cut();
        tree = ScheduleTree(bound);
        next = tree.Next();
      }
      if (!next) {
        exhausted = true;
        break;
      }
      settings.strategy = "sequence";
      settings.schedule = *std::move(next);
      settings.faults = fault_search ? dfs_faults : fixed;
    }
    absl::StatusOr<RunOutcome> o = RunOnce(program, settings);
    if (!o.ok()) return RunError(o.status().message());
    if (o->kind == RunOutcome::Kind::kStopped) break;  // not an execution: cut short
    ++done;
    if (dfs) {
      if (o->kind == RunOutcome::Kind::kFinished) {
        const ExecReport& r = o->report;
        std::vector<SchedulePoint> points;
        for (std::size_t k = 0; k < r.point_widths.size() && k < r.point_preempts.size(); ++k) {
          points.push_back(SchedulePoint{r.point_widths[k], r.point_preempts[k]});
        }
        if (absl::Status recorded = tree.Record(r.sequence, points); !recorded.ok()) {
          return RunError(absl::StrCat("exec: ", recorded.message()));
        }
      } else {
        // A process that died or hung reports no points to extend the tree.
        search_stopped = absl::StrCat("execution ", done, " did not finish");
      }
    }
    if (o->kind == RunOutcome::Kind::kInternalError) {
      std::fprintf(stderr, "%s", o->output.c_str());
      return RunError(
          absl::StrCat("exec: ", Describe(*o), "; at execution ", done, ", seed ", settings.seed));
    }
    if (o->kind == RunOutcome::Kind::kStartFailed && done == 1) {
      std::fprintf(stderr, "%s", o->output.c_str());
      return UsageError(absl::StrCat("exec: ", Describe(*o), " (see its output above)"));
    }
    if (o->kind == RunOutcome::Kind::kFinished) {
      digests.insert(o->report.digest);
      program_exits.insert(o->report.exit_status);
      if (i == 0) CountCalls(o->report, &launches, &allocs);
    }
    if (Violated(*o)) {
      const Finding f = FindingOf(*o);
      bool known = false;
      for (const Found& k : found) known |= FindingOf(k.outcome) == f;
      if (!known) found.push_back(Found{*std::move(o), settings.faults, done, elapsed()});
      if (!all_findings || !search_stopped.empty()) break;
    }
    if (elapsed() >= next_progress) {
      next_progress += progress_every;
      std::fprintf(stderr,
                   "exec: %llu executions, %.1f/s, %zu distinct traces, %zu findings, %.0f s\n",
                   static_cast<unsigned long long>(done), done / elapsed(), digests.size(),
                   found.size(), elapsed());
    }
  }
  if (dfs && !exhausted && found.empty() && search_stopped.empty() && done < executions &&
      !stop->load() && !(budget_s > 0 && elapsed() > budget_s)) {
    exhausted = !tree.Next().has_value() && (!fault_search || (plans_listed && plans_left.empty()));
  }
  bound_cut |= tree.bound_cut();
  const std::string plans_shown =
      dfs && fault_search
          ? absl::StrFormat(
                ", %u fault plans (none, and every plan of up to %d fault%s: a launch "
                "trapping or rejected, an allocation failing alone or with the next)",
                plans_walked, max_faults, max_faults == 1 ? "" : "s")
          : "";
  const double explore_s = elapsed();
  const double rate = done / std::max(explore_s, 1e-9);
  // What a dfs covered: "exhausted yes" means every schedule within the bound ran.
  const std::string coverage =
      !dfs ? std::string()
           : absl::StrFormat("dfs, preemption bound %s%s: exhausted %s%s",
                             bound < 0 ? std::string("none") : absl::StrCat(bound), plans_shown,
                             exhausted ? "yes" : "no",
                             exhausted && bound_cut   ? " (the bound left schedules out)"
                             : search_stopped.empty() ? ""
                                                      : absl::StrCat(" (", search_stopped, ")"));

  // Each finding shrunk, replayed exactly (the same schedule must give the
  // same trace) and saved; then the report, described once for text and JSON.
  struct Reported {
    const Found* found;
    RunOutcome shrunk;
    ExecReplay replay;
    int shrink_executions = 0;
    double shrink_s = 0;
    std::string replay_check;
    std::string saved;
    std::string token;
  };
  std::vector<Reported> reported;
  for (const Found& f : found) {
    Shrinker shrinker(program, shrink_budget);
    FaultPlan kept;
    const auto shrink_start = std::chrono::steady_clock::now();
    Reported r{&f, shrinker.Shrink(f.outcome, f.faults, &kept), {}, 0, 0, {}, {}, {}};
    r.shrink_executions = shrinker.executions();
    r.shrink_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - shrink_start).count();
    const RunOutcome& shrunk = r.shrunk;
    ExecReplay& replay = r.replay;
    replay.program = program.program;
    replay.program_id = program_id;
    replay.args = program.args;
    replay.faults = program::FormatFaults(kept);
    replay.schedule = shrunk.report.choices;
    replay.digest = shrunk.report.digest;
    const Finding finding = FindingOf(shrunk);
    replay.property = finding.property;
    replay.fingerprint = finding.fingerprint;
    replay.message =
        shrunk.kind == RunOutcome::Kind::kFinished ? shrunk.report.message : Describe(shrunk);
    r.replay_check = "not replayable (the run did not finish)";
    if (Stopping(program)) {
      r.replay_check = "not replayed: stopped by a signal or the time budget";
    } else if (shrunk.kind == RunOutcome::Kind::kFinished) {
      RunSettings again;
      again.strategy = "replay";
      again.schedule = replay.schedule;
      again.faults = kept;
      absl::StatusOr<RunOutcome> o = RunOnce(program, again);
      // A stuck run must get stuck again, with the trace it had so far.
      const bool stuck = shrunk.report.verdict == "stuck";
      const bool same = o.ok() && o->kind == RunOutcome::Kind::kFinished &&
                        o->report.digest == replay.digest && o->report.replay_status.empty() &&
                        (o->report.verdict == "stuck") == stuck;
      r.replay_check = !o.ok()         ? std::string(o.status().message())
                       : same && stuck ? "replayed: stuck again, same trace digest"
                       : same          ? "replayed: same trace digest"
                              : absl::StrCat("REPLAY DIVERGED (nondeterminism): ", Describe(*o));
    }
    // A file that cannot be written loses nothing: the token says it all.
    absl::StatusOr<std::string> saved = SaveReplay(replay);
    if (saved.ok()) {
      r.saved = *saved;
    } else {
      std::fprintf(stderr,
                   "stackcheck exec: the replay file was not written (%s); the token "
                   "below replays the finding\n",
                   std::string(saved.status().message()).c_str());
    }
    r.token = ExecReplayToken(replay);
    reported.push_back(std::move(r));
  }

  ReportSink report(json, "exec");
  const std::string runs =
      dfs ? coverage : absl::StrFormat("%s, seeds %u..%u", strategy, seed, seed + done - 1);
  const std::string faults_shown = fault_search    ? (dfs ? "" : ", a random fault each")
                                   : fixed.empty() ? ""
                                                   : ", faults " + faults_flag;
  // A program that never offloaded was explored on the host alone.
  const std::string offload_shown =
      done > 0 && launches == 0
          ? "; no kernel was launched in the first execution (the regions ran on the host: "
            "OMP_TARGET_OFFLOAD=MANDATORY makes that an error)"
          : "";
  // The program's own exit statuses, when not all 0 (a test's own failure).
  const std::string exits_shown =
      program_exits.empty() || program_exits == std::set<int>{0}
          ? ""
          : absl::StrCat(", the program exited ", absl::StrJoin(program_exits, " or "));
  report.Fields(
      found.empty()
          ? absl::StrFormat("exec %s: %u executions (%s%s), %u distinct traces, no violation%s "
                            "(%.1f s, %.1f executions/s)%s",
                            program.program, done, runs, faults_shown, digests.size(), exits_shown,
                            explore_s, rate, offload_shown)
          : absl::StrFormat("exec %s: %u executions (%s%.1f s, %.1f executions/s), %u distinct "
                            "traces, %u finding%s",
                            program.program, done, dfs ? coverage + ", " : "", explore_s, rate,
                            digests.size(), found.size(), found.size() == 1 ? "" : "s"),
      [&](properties::JsonWriter& j) {
        j.Key("program").String(program.program);
        j.Key("executions").Uint(done);
        j.Key("distinct_traces").Uint(digests.size());
        j.Key("seconds").Double(explore_s);
        j.Key("executions_per_s").Double(rate);
        j.Key("verdict").String(found.empty() ? "clean" : "violation");
        j.Key("kernels_launched").Uint(launches);  // in the first execution
        j.Key("program_exit_statuses").BeginArray();
        for (int status : program_exits) j.Int(status);
        j.EndArray();
        j.Key("strategy").String(strategy);
        if (dfs) {
          j.Key("preemption_bound").Int(bound);
          j.Key("exhausted").Bool(exhausted);
          j.Key("bound_cut").Bool(bound_cut);
          if (fault_search) j.Key("fault_plans").Uint(plans_walked);
        }
      });
  // Stopped early: say so; a signal exits 128 + its number, as check does.
  const int signal = CaughtSignal();
  const bool out_of_time = signal == 0 && budget_s > 0 && elapsed() > budget_s;
  if (signal != 0 || out_of_time) {
    report.Fields(signal != 0 ? absl::StrFormat("INTERRUPTED by signal %d after %u executions; "
                                                "findings are shown as found, not shrunk",
                                                signal, done)
                              : absl::StrFormat("the time budget (%g s) ended the run after %u "
                                                "executions",
                                                budget_s, done),
                  [&](properties::JsonWriter& j) {
                    j.Key("interrupted").Bool(signal != 0);
                    j.Key("out_of_time").Bool(out_of_time);
                  });
  }
  // A count given is a count (as campaign's): a budget that cuts it short
  // fails the run, with what it covered.
  const bool incomplete =
      signal == 0 && out_of_time && !dfs && FlagGiven("executions") && done < executions;
  if (incomplete) {
    report.Fields(absl::StrFormat("INCOMPLETE: %u of %u executions explored", done, executions),
                  [](properties::JsonWriter& j) { j.Key("complete").Bool(false); });
  }
  const int stopped_rc = signal != 0 ? 128 + signal : incomplete ? kExitMismatch : -1;
  if (found.empty()) return report.Finish(stopped_rc >= 0 ? stopped_rc : kExitOk);
  std::string text;
  for (const Reported& r : reported) {
    const Found& f = *r.found;
    absl::StrAppend(&text, "\n", Describe(f.outcome), "\n");
    absl::StrAppendFormat(
        &text,
        "found at execution %u (%s, after %.1f s); shrunk in %d executions (%.1f s) to %u "
        "scheduling choices, %u preemptions, faults: %s\n",
        f.execution, dfs ? std::string("dfs") : absl::StrCat("seed ", seed + f.execution - 1),
        f.found_after_s, r.shrink_executions, r.shrink_s, r.replay.schedule.size(),
        r.shrunk.report.preemptions, r.replay.faults.empty() ? "none" : r.replay.faults);
    absl::StrAppend(&text, "shrunk: ", Describe(r.shrunk), "\n", FormatOutcome(r.shrunk, 40),
                    r.replay_check, "\n");
    if (!r.saved.empty()) {
      absl::StrAppend(&text, "replay: stackcheck replay ", r.saved, " -- ", program.program, "\n");
    }
    absl::StrAppend(&text, "token: ", r.token, "\n");
  }
  report.Fields(text, [&](properties::JsonWriter& j) {
    j.Key("findings").BeginArray();
    for (const Reported& r : reported) {
      j.BeginObject();
      j.Key("found_at_execution").Uint(r.found->execution);
      j.Key("property").String(r.replay.property);
      j.Key("message").String(r.replay.message);
      j.Key("fingerprint").String(r.replay.fingerprint);
      j.Key("waits").BeginArray();
      for (const std::string& w : r.shrunk.report.waits) j.String(w);
      j.EndArray();
      j.Key("faults").String(r.replay.faults);
      j.Key("schedule_length").Uint(r.replay.schedule.size());
      j.Key("preemptions").Uint(r.shrunk.report.preemptions);
      j.Key("shrink_executions").Int(r.shrink_executions);
      j.Key("found_after_s").Double(r.found->found_after_s);
      j.Key("shrink_s").Double(r.shrink_s);
      j.Key("replay").String(r.replay_check);
      j.Key("replay_file").String(r.saved);
      j.Key("token").String(r.token);
      j.EndObject();
    }
    j.EndArray();
  });
  return report.Finish(stopped_rc >= 0 ? stopped_rc : kExitMismatch);
}

const bool registered = RegisterCommand(
    {"exec",
     "exec [--executions=N] [--exec_strategy=random|pct|dfs] [--exec_bound=K] "
     "[--exec_faults=PLAN|search] "
     "[--libcuda=PATH] -- PROGRAM [ARGS]",
     "run a real OpenMP offload program on the simulated GPU, its threads explored", &RunExec});

}  // namespace

int ReplayExec(const std::string& path_or_token, const std::string& program_name,
               const std::string& format, const std::string& out_path) {
  absl::StatusOr<ExecReplay> replay = LoadExecReplay(path_or_token);
  if (!replay.ok()) return UsageError(replay.status().message());
  absl::StatusOr<std::string> lib = FindLibcuda(absl::GetFlag(FLAGS_libcuda));
  if (!lib.ok()) return UsageError(lib.status().message());
  // A token is pasted from someone else's report: it runs only the program
  // its user names, and only if that is the recorded build.
  if (program_name.empty()) {
    return UsageError(
        absl::StrCat("an exec replay runs only the program you name: replay FILE|TOKEN -- PROGRAM "
                     "(this one recorded ",
                     replay->program, ")"));
  }
  absl::StatusOr<std::string> named = ResolveProgram(program_name);
  if (!named.ok()) return UsageError(named.status().message());
  if (!replay->program_id.empty()) {
    absl::StatusOr<std::string> id = ProgramIdentity(*named);
    if (!id.ok()) return UsageError(id.status().message());
    if (*id != replay->program_id) {
      return UsageError(
          absl::StrFormat("%s is not the program the replay recorded (%s, %s): its identity is %s",
                          *named, replay->program, replay->program_id, *id));
    }
  } else {
    absl::FPrintF(stderr,
                  "stackcheck: the replay records no program identity (an older file); "
                  "running %s as named\n",
                  *named);
  }
  replay->program = *named;
  absl::StatusOr<program::FaultPlan> faults = program::ParseFaults(replay->faults);
  if (!faults.ok()) return UsageError(faults.status().message());
  const int watchdog = absl::GetFlag(FLAGS_exec_watchdog_s);
  if (watchdog < 1 || watchdog > 3600) return UsageError("--exec_watchdog_s must be in [1, 3600]");
  absl::StatusOr<ScratchDirectory> scratch = ScratchDirectory::Make();
  if (!scratch.ok()) return RunError(scratch.status().message());
  ProgramUnderTest program{*lib, replay->program, replay->args, watchdog, scratch->path()};
  program.stop = StopOnSignals();
  RunSettings settings;
  settings.strategy = "replay";
  settings.schedule = replay->schedule;
  settings.faults = *faults;
  absl::StatusOr<RunOutcome> o = RunOnce(program, settings);
  if (!o.ok()) return RunError(o.status().message());
  if (o->kind == RunOutcome::Kind::kStopped) {
    absl::FPrintF(stderr, "stackcheck: replay stopped by signal %d\n", CaughtSignal());
    return 128 + CaughtSignal();
  }
  const bool same = o->kind == RunOutcome::Kind::kFinished && o->report.digest == replay->digest &&
                    o->report.replay_status.empty();
  const bool again = Violated(*o) && FindingOf(*o).property == replay->property;
  if (format == "steer") {
    // The order of the calls, for the observe preload on the real driver;
    // written only from a replay that reproduced its recording.
    if (!same) {
      return RunError(
          absl::StrFormat("the replay did not reproduce (%s); no steering written", Describe(*o)));
    }
    std::string text = absl::StrCat("# stackcheck steering: ", replay->program, " ",
                                    absl::StrJoin(replay->args, " "), "; ", replay->property, "\n");
    for (const std::string& line : SteeringOrder(o->report.calls))
      absl::StrAppend(&text, line, "\n");
    if (out_path.empty()) {
      absl::PrintF("%s", text);
    } else {
      std::ofstream out(out_path);
      out << text;
      if (!out) return RunError(absl::StrCat("cannot write ", out_path));
    }
    return kExitOk;
  }
  if (format == "chrome") {
    properties::JsonWriter j;
    j.BeginObject();
    j.Key("traceEvents").BeginArray();
    for (const program::TimelineEvent& e : o->report.timeline) {
      j.BeginObject();
      j.Key("name").String(e.text);
      j.Key("ph").String("i");
      j.Key("s").String("t");
      j.Key("ts").Double(e.ns / 1000.0);
      j.Key("pid").Int(1);
      j.Key("tid").String(e.actor);
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
    if (out_path.empty()) {
      absl::PrintF("%s\n", j.str());
    } else {
      std::ofstream out(out_path);
      out << j.str() << "\n";
      if (!out) return RunError(absl::StrCat("cannot write ", out_path));
    }
  } else if (absl::GetFlag(FLAGS_json)) {
    // One JSON object, as every command's --json gives.
    ReportSink report(/*json=*/true, "replay");
    report.Fields("", [&](properties::JsonWriter& j) {
      j.Key("program").String(replay->program);
      j.Key("args").BeginArray();
      for (const std::string& a : replay->args) j.String(a);
      j.EndArray();
      j.Key("faults").String(replay->faults);
      j.Key("property").String(replay->property);
      j.Key("recurred").Bool(again);
      j.Key("outcome").String(Describe(*o));
      j.Key("fingerprint").String(FindingOf(*o).fingerprint);
      j.Key("digest_matches").Bool(same);
      j.Key("digest").String(absl::StrFormat("%016x", o->report.digest));
      j.Key("recorded_digest").String(absl::StrFormat("%016x", replay->digest));
    });
    return report.Finish(same && again ? kExitOk : kExitMismatch);
  } else {
    absl::PrintF("replay of %s %s (faults: %s)\n", replay->program,
                 absl::StrJoin(replay->args, " "),
                 replay->faults.empty() ? "none" : replay->faults);
    absl::PrintF("%s\n%s", Describe(*o), FormatOutcome(*o, 1u << 30));
    absl::PrintF("%s\n", same ? "same trace digest as recorded"
                              : absl::StrFormat("DIGEST DIFFERS: recorded %016x, got %016x",
                                                replay->digest, o->report.digest));
  }
  return same && again ? kExitOk : kExitMismatch;
}

}  // namespace stackcheck::cli
