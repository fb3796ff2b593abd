#include "properties/program/explore_program.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "properties/atomic_file.h"
#include "properties/program/fault_plans.h"
#include "properties/program/program_finding.h"
#include "properties/program/program_shrinker.h"
#include "properties/program/schedule_tree.h"
#include "properties/program/scratch_directory.h"
#include "properties/program/steering.h"

namespace stackcheck::properties {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Faults = ProgramSpec::Faults;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::Status CheckWatchdog(int watchdog_s) {
  if (watchdog_s < 1 || watchdog_s > kMaxWatchdogSeconds) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the watchdog must be in [1, %d] seconds", kMaxWatchdogSeconds));
  }
  return absl::OkStatus();
}

absl::Status CheckSpec(const ProgramSpec& spec) {
  if (spec.strategy != "random" && spec.strategy != "pct" && spec.strategy != "dfs") {
    return absl::InvalidArgumentError(
        absl::StrCat("the strategy is random, pct or dfs, not '", spec.strategy, "'"));
  }
  if (spec.preemption_bound < -1 || spec.preemption_bound > kMaxPreemptionBound) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the preemption bound must be in [-1, %d]", kMaxPreemptionBound));
  }
  if (spec.max_faults < 1 || spec.max_faults > kMaxFaultsPerPlan) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the faults a plan may hold must be in [1, %d]", kMaxFaultsPerPlan));
  }
  if (absl::Status s = CheckWatchdog(spec.watchdog_s); !s.ok()) return s;
  if (spec.shrink_executions < 0) {
    return absl::InvalidArgumentError("the shrinking's executions must be >= 0");
  }
  if (spec.program.empty() || spec.libcuda.empty()) {
    return absl::InvalidArgumentError("no program, or no simulated libcuda.so.1");
  }
  return absl::OkStatus();
}

// The schedules and fault plans a search runs, one execution after another:
// seeds for random and pct; for dfs the schedule tree of each plan in turn,
// the fault-free plan first (its counts list the others).
class ExecutionSource {
 public:
  explicit ExecutionSource(const ProgramSpec& spec)
      : spec_(spec), dfs_(spec.strategy == "dfs"), tree_(spec.preemption_bound) {
    if (spec.faults == Faults::kPlan) dfs_plan_ = spec.plan;
  }

  // The next execution's settings; nullopt when a dfs has run its last tree.
  absl::StatusOr<std::optional<RunSettings>> Next(std::uint64_t i, const CallCounts& counts,
                                                  std::uint64_t done) {
    RunSettings settings;
    settings.strategy = spec_.strategy;
    settings.seed = spec_.seed + i;
    settings.faults = PlanFor(i, counts);
    if (!dfs_) return std::optional<RunSettings>(std::move(settings));
    std::optional<std::vector<std::uint64_t>> next = tree_.Next();
    while (!next && spec_.faults == Faults::kSearch && done > 0) {
      absl::StatusOr<bool> another = NextPlan(counts);
      if (!another.ok()) return another.status();
      if (!*another) break;
      next = tree_.Next();
    }
    if (!next) return std::optional<RunSettings>();
    settings.strategy = "sequence";
    settings.schedule = *std::move(next);
    settings.faults = dfs_plan_;
    return std::optional<RunSettings>(std::move(settings));
  }

  // What a dfs execution met, to extend the tree; a run that died or hung
  // reports no points, and ends the walk.
  absl::Status Record(const RunOutcome& o, std::uint64_t done) {
    if (!dfs_) return absl::OkStatus();
    if (o.kind != RunOutcome::Kind::kFinished) {
      stopped_ = absl::StrCat("execution ", done, " did not finish");
      return absl::OkStatus();
    }
    const program::ExecReport& r = o.report;
    std::vector<SchedulePoint> points;
    for (std::size_t k = 0; k < r.point_widths.size() && k < r.point_preempts.size(); ++k) {
      points.push_back(SchedulePoint{r.point_widths[k], r.point_preempts[k]});
    }
    return tree_.Record(r.sequence, points);
  }

  // After the loop ended without a finding or a stop: whether nothing is left.
  bool NothingLeft() {
    return !tree_.Next().has_value() &&
           (spec_.faults != Faults::kSearch || (plans_listed_ && plans_left_.empty()));
  }
  bool bound_cut() const { return bound_cut_ || tree_.bound_cut(); }
  std::size_t plans_walked() const { return plans_walked_; }
  const std::string& stopped() const { return stopped_; }

 private:
  program::FaultPlan PlanFor(std::uint64_t i, const CallCounts& counts) const {
    switch (spec_.faults) {
      case Faults::kNone:
        return {};
      case Faults::kPlan:
        return spec_.plan;
      case Faults::kSearch:
        break;
    }
    if (i == 0) return {};
    return RandomPlan(spec_.seed + i, counts.launches, counts.allocs, spec_.max_faults);
  }

  // Moves the walk to the next plan's tree; false when none is left.
  absl::StatusOr<bool> NextPlan(const CallCounts& counts) {
    if (!plans_listed_) {
      absl::StatusOr<std::vector<program::FaultPlan>> every =
          EveryPlan(counts.launches, counts.allocs, spec_.max_faults);
      if (!every.ok()) return absl::InvalidArgumentError(every.status().message());
      plans_left_ = *std::move(every);
      std::reverse(plans_left_.begin(), plans_left_.end());
      plans_listed_ = true;
    }
    if (plans_left_.empty()) return false;
    dfs_plan_ = plans_left_.back();
    plans_left_.pop_back();
    ++plans_walked_;
    bound_cut_ |= tree_.bound_cut();
    tree_ = ScheduleTree(spec_.preemption_bound);
    return true;
  }

  const ProgramSpec& spec_;
  const bool dfs_;
  ScheduleTree tree_;
  program::FaultPlan dfs_plan_;
  std::vector<program::FaultPlan> plans_left_;
  bool plans_listed_ = false;
  std::size_t plans_walked_ = 1;
  bool bound_cut_ = false;
  std::string stopped_;
};

// An execution that violated something, before it is shrunk.
struct Found {
  RunOutcome outcome;
  program::FaultPlan faults;
  std::uint64_t execution = 0;
  std::uint64_t seed = 0;
  double found_after_s = 0;
};

std::string ReplayCheck(const ProgramUnderTest& program, const RunOutcome& shrunk,
                        const ExecReplay& replay, const program::FaultPlan& faults) {
  if (Stopping(program)) return "not replayed: stopped by a signal or the time budget";
  if (shrunk.kind != RunOutcome::Kind::kFinished) return "not replayable (the run did not finish)";
  RunSettings again;
  again.strategy = "replay";
  again.schedule = replay.schedule;
  again.faults = faults;
  absl::StatusOr<RunOutcome> o = RunOnce(program, again);
  if (!o.ok()) return std::string(o.status().message());
  // A stuck run must get stuck again, with the trace it had so far.
  const bool stuck = shrunk.report.verdict == "stuck";
  const bool same = o->kind == RunOutcome::Kind::kFinished && o->report.digest == replay.digest &&
                    o->report.replay_status.empty() && (o->report.verdict == "stuck") == stuck;
  if (same)
    return stuck ? "replayed: stuck again, same trace digest" : "replayed: same trace digest";
  return absl::StrCat("REPLAY DIVERGED (nondeterminism): ", Describe(*o));
}

void SaveReplay(const std::string& dir, ProgramFinding* f) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string path =
      absl::StrFormat("%s/exec-%s-%016x.replay", dir,
                      fs::path(f->replay.program).filename().string(), f->replay.digest);
  if (absl::Status s = WriteFileAtomically(path, FormatExecReplay(f->replay)); !s.ok()) {
    f->replay_file_error = std::string(s.message());
    return;
  }
  f->replay_file = path;
}

// A finding shrunk, replayed exactly (the same schedule must give the same
// trace) and saved; a file that cannot be written loses nothing: the token
// says it all.
ProgramFinding Report(const ProgramSpec& spec, const ProgramUnderTest& program,
                      const std::string& program_id, const Found& found) {
  ProgramFinding f;
  f.found = found.outcome;
  f.seed = found.seed;
  f.found_after_s = found.found_after_s;
  const Clock::time_point start = Clock::now();
  ProgramShrinkResult shrunk =
      ShrinkProgramRun(program, found.outcome, found.faults, spec.shrink_executions);
  f.shrink_executions = shrunk.executions;
  f.shrink_s = SecondsSince(start);
  f.shrunk = std::move(shrunk.smallest);
  const sim::Violation violation = ViolationOf(f.shrunk);
  ExecReplay& replay = f.replay;
  replay.program = program.program;
  replay.program_id = program_id;
  replay.args = program.args;
  replay.faults = program::FormatFaults(shrunk.faults);
  replay.schedule = f.shrunk.report.choices;
  replay.digest = f.shrunk.report.digest;
  replay.property = violation.property;
  replay.fingerprint = violation.fingerprint;
  replay.message = violation.message;
  f.replay_check = ReplayCheck(program, f.shrunk, replay, shrunk.faults);
  SaveReplay(spec.replay_dir, &f);
  f.finding = Finding{violation, false, found.execution, replay.schedule, ExecReplayToken(replay)};
  return f;
}

class ProgramSearch {
 public:
  ProgramSearch(const ProgramSpec& spec, ProgramUnderTest program)
      : spec_(spec), program_(std::move(program)), source_(spec) {}

  ProgramReport Run(const std::string& program_id) {
    const std::uint64_t budget = spec_.max_executions > 0  ? spec_.max_executions
                                 : spec_.strategy == "dfs" ? 1000000
                                                           : 100;
    for (std::uint64_t i = 0; i < budget && report_.status.ok() && !Stopping(program_); ++i) {
      absl::StatusOr<std::optional<RunSettings>> next = source_.Next(i, counts_, done_);
      if (!next.ok()) return Failed(next.status());
      if (!next->has_value()) {
        report_.exhausted = true;
        break;
      }
      if (!RunOne(i, **next)) break;
      Progress();
    }
    if (!report_.status.ok()) return std::move(report_);
    report_.seconds = SecondsSince(start_);
    if (spec_.strategy == "dfs" && !report_.exhausted && found_.empty() &&
        source_.stopped().empty() && done_ < budget && !Stopping(program_)) {
      report_.exhausted = source_.NothingLeft();
    }
    Summarise();
    for (const Found& f : found_)
      report_.findings.push_back(Report(spec_, program_, program_id, f));
    return std::move(report_);
  }

 private:
  // One execution; false when the search ends with it.
  bool RunOne(std::uint64_t i, const RunSettings& settings) {
    absl::StatusOr<RunOutcome> o = RunOnce(program_, settings);
    if (!o.ok()) return Fail(absl::InternalError(o.status().message()));
    if (o->kind == RunOutcome::Kind::kStopped) return false;  // not an execution: cut short
    ++done_;
    if (absl::Status s = source_.Record(*o, done_); !s.ok()) {
      return Fail(absl::InternalError(s.message()));
    }
    if (o->kind == RunOutcome::Kind::kInternalError) {
      report_.output = o->output;
      return Fail(absl::InternalError(
          absl::StrCat(Describe(*o), "; at execution ", done_, ", seed ", settings.seed)));
    }
    if (o->kind == RunOutcome::Kind::kStartFailed && done_ == 1) {
      report_.output = o->output;
      return Fail(absl::InvalidArgumentError(Describe(*o)));
    }
    if (o->kind == RunOutcome::Kind::kFinished) {
      digests_.insert(o->report.digest);
      report_.program_exit_statuses.insert(o->report.exit_status);
      if (i == 0) counts_ = CountCalls(o->report);
    }
    if (!Violated(*o)) return true;
    const sim::Violation v = ViolationOf(*o);
    const bool known = std::any_of(found_.begin(), found_.end(), [&](const Found& f) {
      return SameBug(ViolationOf(f.outcome), v);
    });
    if (!known) {
      found_.push_back(
          Found{*std::move(o), settings.faults, done_, settings.seed, SecondsSince(start_)});
    }
    return spec_.all_findings && source_.stopped().empty();
  }

  bool Fail(absl::Status status) {
    report_.status = std::move(status);
    return false;
  }
  ProgramReport Failed(absl::Status status) {
    report_.status = std::move(status);
    return std::move(report_);
  }

  void Progress() {
    if (!spec_.on_progress || SecondsSince(last_progress_) < 2) return;
    last_progress_ = Clock::now();
    spec_.on_progress(done_, digests_.size(), found_.size(), SecondsSince(start_));
  }

  void Summarise() {
    report_.executions = done_;
    report_.distinct_traces = digests_.size();
    report_.bound_cut = source_.bound_cut();
    report_.fault_plans = source_.plans_walked();
    report_.search_stopped = source_.stopped();
    report_.kernels_launched = counts_.launches;
    report_.interrupted = spec_.interrupt != nullptr && spec_.interrupt->load();
    report_.out_of_time = !report_.interrupted && Clock::now() >= program_.deadline;
  }

  const ProgramSpec& spec_;
  const ProgramUnderTest program_;
  ExecutionSource source_;
  ProgramReport report_;
  CallCounts counts_;
  std::set<std::uint64_t> digests_;
  std::uint64_t done_ = 0;
  std::vector<Found> found_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_progress_ = start_;
};

Clock::time_point DeadlineAfter(absl::Duration budget) {
  if (budget == absl::InfiniteDuration()) return Clock::time_point::max();
  return Clock::now() + absl::ToChronoNanoseconds(budget);
}

bool IsProgram(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

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

ProgramReport ExploreProgram(const ProgramSpec& spec) {
  ProgramReport report;
  report.status = CheckSpec(spec);
  if (!report.status.ok()) return report;
  // Recorded in each replay, which then runs only this build of it.
  absl::StatusOr<std::string> identity = ProgramIdentity(spec.program);
  if (!identity.ok()) {
    report.status = absl::InvalidArgumentError(identity.status().message());
    return report;
  }
  std::optional<ScratchDirectory> own_scratch;
  std::string scratch = spec.scratch;
  if (scratch.empty()) {
    absl::StatusOr<ScratchDirectory> made = ScratchDirectory::Make();
    if (!made.ok()) {
      report.status = made.status();
      return report;
    }
    own_scratch.emplace(*std::move(made));
    scratch = own_scratch->path();
  }
  ProgramUnderTest program{spec.libcuda, spec.program, spec.args, spec.watchdog_s, scratch};
  program.fork_server = spec.fork_server;
  program.stop = spec.interrupt;
  program.deadline = DeadlineAfter(spec.time_budget);
  return ProgramSearch(spec, std::move(program)).Run(*identity);
}

absl::StatusOr<ProgramReplayReport> ReplayProgram(const ProgramReplaySpec& spec) {
  ProgramReplayReport r;
  absl::StatusOr<ExecReplay> replay = LoadExecReplay(spec.path_or_token);
  if (!replay.ok()) return absl::InvalidArgumentError(replay.status().message());
  r.replay = *std::move(replay);
  if (spec.program.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an exec replay runs only the program you name: replay FILE|TOKEN -- PROGRAM (this one "
        "recorded ",
        r.replay.program, ")"));
  }
  absl::StatusOr<std::string> named = ResolveProgram(spec.program);
  if (!named.ok()) return absl::InvalidArgumentError(named.status().message());
  r.identity_recorded = !r.replay.program_id.empty();
  if (r.identity_recorded) {
    absl::StatusOr<std::string> id = ProgramIdentity(*named);
    if (!id.ok()) return absl::InvalidArgumentError(id.status().message());
    if (*id != r.replay.program_id) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s is not the program the replay recorded (%s, %s): its identity is %s",
                          *named, r.replay.program, r.replay.program_id, *id));
    }
  }
  r.replay.program = *named;
  absl::StatusOr<program::FaultPlan> faults = program::ParseFaults(r.replay.faults);
  if (!faults.ok()) return absl::InvalidArgumentError(faults.status().message());
  if (absl::Status s = CheckWatchdog(spec.watchdog_s); !s.ok()) return s;
  absl::StatusOr<ScratchDirectory> scratch = ScratchDirectory::Make();
  if (!scratch.ok()) return scratch.status();
  ProgramUnderTest program{spec.libcuda, r.replay.program, r.replay.args, spec.watchdog_s,
                           scratch->path()};
  program.stop = spec.interrupt;
  RunSettings settings;
  settings.strategy = "replay";
  settings.schedule = r.replay.schedule;
  settings.faults = *faults;
  settings.chrome_trace = spec.chrome_trace;
  absl::StatusOr<RunOutcome> o = RunOnce(program, settings);
  if (!o.ok()) return o.status();
  r.outcome = *std::move(o);
  r.stopped = r.outcome.kind == RunOutcome::Kind::kStopped;
  r.same_digest = r.outcome.kind == RunOutcome::Kind::kFinished &&
                  r.outcome.report.digest == r.replay.digest &&
                  r.outcome.report.replay_status.empty();
  r.recurred = Violated(r.outcome) && ViolationOf(r.outcome).property == r.replay.property;
  if (r.same_digest) r.steering = SteeringOrder(r.outcome.report.calls);
  return r;
}

}  // namespace stackcheck::properties
