// `stackcheck check --policy P --strategy dfs|plain-dfs|random|pct ...`:
// explores one bounded scenario under one policy and says how much of its
// schedule space was covered; with --enumerate, every scenario up to a size
// bound (cli/check_enumerate.h).
//
//   --scenario regions  --threads N host threads x --regions M regions each;
//                       region sizes alternate 1 and 2 warp slots so the
//                       cached block must grow; --abort makes thread 0's last
//                       region abort (a trap); --warps, --user_alloc (and
//                       --is_device_ptr: its regions use it),
//                       --enter_data add to its shape.
//   --scenario NAME     a scenario of the catalogue (properties/scenarios.h):
//                       standard, peer, and their +exit forms, which close the
//                       device at exit; --abort makes thread 0's last region
//                       abort here too.
//   --scenario_file F   a scenario file (properties/replay_file.h).
//   Faults, device and modes on any of them: cli/check_scenario.h.
//
// Every simulator property is monitored, except deviations the policy
// declares it accepts. Each violation has a fingerprint (sim/fingerprint.h):
// known when properties/known_bugs.txt lists it for the policy, NEW otherwise.
// With --only_kept a known bug does not end its execution (so that an
// exhaustive search goes past it) and the known bugs met are listed. Prints
// `executions N`, `exhausted yes|no` and the
// first violation (with a replay token); for --strategy dfs it then runs a
// plain DFS (no reduction) on a budget and prints its count and the
// reduction. "exhausted yes" from dfs means: every schedule of this scenario
// with at most --bound preemptions (all of them without a bound) is
// equivalent, step dependencies respected, to an explored one, so the
// verdict holds for all of them (see sim/strategies/dfs_strategy.h).
//
// --checkpoint F (with --jobs): a search stopped unfinished by a budget or a
// signal writes where it stood to F; --resume F goes on from there, in any
// number of parts, each worker's stack where it stood (properties/
// search_checkpoint.h). The counts printed are the parts' totals.
//
// --json prints the same facts as one JSON object (the violation with its
// replay token, the plain-DFS run as a nested object).
//
// Exit status: 0 when every violation found is a known bug, 1 when one is
// NEW or (--only_kept, exhaustive) a known bug recorded for this scenario
// was not met (FIXED?), 2 on bad input.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/check_enumerate.h"
#include "cli/check_scenario.h"
#include "cli/check_shard.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/flag_parser.h"
#include "cli/interrupt.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "properties/atomic_file.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/expected_verdicts.h"
#include "properties/explore.h"
#include "properties/known_bugs.h"
#include "properties/scenarios.h"

ABSL_FLAG(std::string, strategy, "dfs",
          "check: dfs (with DPOR or sleep sets), plain-dfs, random or pct");
ABSL_FLAG(int, bound, -1, "check: preemption bound for dfs (-1 = none)");
ABSL_FLAG(bool, iterative, false,
          "check: dfs with bounds 0, 1, ... up to --bound (finds shallow bugs first)");
ABSL_FLAG(std::uint64_t, max_executions, 0,
          "check: execution budget (0 = 10,000,000 for dfs, 10,000 for random/pct; with "
          "--enumerate, of the whole enumeration, 0 = none)");
ABSL_FLAG(std::uint64_t, plain_budget, 0,
          "check: budget of the plain-DFS comparison run (0 = 20x the dfs count, at "
          "least 1,000)");
ABSL_FLAG(bool, no_plain, false, "check: skip the plain-DFS comparison");
ABSL_FLAG(bool, only_kept, false,
          "check: a known bug of the policy (properties/known_bugs.txt, by fingerprint) "
          "does not end its execution, so dfs explores past it; only a NEW bug is a "
          "violation, `exhausted yes` proves the rest, and a known bug recorded for "
          "this scenario that the search did not meet is reported FIXED?");
ABSL_FLAG(std::string, property, "",
          "check: search for this property alone (its monitor only; another property's "
          "violation, the engine's no-deadlock included, ends its execution but not the "
          "search), e.g. to re-find a bug that others hide");
ABSL_FLAG(int, depth, 3, "check: PCT bug depth");
ABSL_FLAG(std::uint64_t, split_choices, 0,
          "check --jobs: the nodes before this many choices are the workers' shared top, "
          "whose options they claim (0 = 16)");
ABSL_FLAG(std::string, checkpoint, "",
          "check --jobs: if the search stops unfinished (--time_budget_s, --max_executions, "
          "SIGINT/SIGTERM), write where it stood to this file, for --resume (no plain-DFS "
          "comparison follows)");
ABSL_FLAG(std::string, resume, "",
          "check --jobs: go on with the search a --checkpoint file holds (the same policy, "
          "scenario, monitors and --split_choices; any --jobs)");
ABSL_FLAG(std::uint64_t, determinism_every, 0,
          "check: re-run executions 1, 1+N, 1+2N, ... with the same choices and "
          "compare trace digests (0 = off)");

namespace stackcheck::cli {
namespace {

// The strategies `check` offers: those of the registry that explore.
constexpr const char* kCheckStrategies[] = {"dfs", "plain-dfs", "random", "pct"};

// A flag given that has no effect with this strategy and scenario is a usage
// error, not a silent no-op.
absl::Status CheckFlagsApply(const std::string& strategy) {
  struct Rule {
    const char* flag;
    bool applies;
    const char* when;
  };
  const bool dfs = strategy == "dfs" || strategy == "plain-dfs";
  const bool enumerate = EnumerateRequested();
  const bool regions = RegionsScenarioChosen() && !enumerate;
  const bool single = !enumerate;
  std::vector<Rule> rules = {
      {"bound", dfs, "--strategy dfs or plain-dfs"},
      {"iterative", dfs, "--strategy dfs or plain-dfs"},
      {"plain_budget", strategy == "dfs" && single, "--strategy dfs, one scenario"},
      {"no_plain", strategy == "dfs" && single, "--strategy dfs, one scenario"},
      {"depth", strategy == "pct", "--strategy pct"},
      {"jobs", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"split_choices", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"checkpoint", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"resume", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"shard_count", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"shard_index", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"part", dfs && single, "--strategy dfs or plain-dfs, one scenario"},
      {"seed", !dfs, "--strategy random or pct"},
  };
  for (const char* flag :
       {"threads", "regions", "warps", "user_alloc", "is_device_ptr", "enter_data"}) {
    rules.push_back({flag, regions, "--scenario regions"});
  }
  for (const char* flag : SingleScenarioFlags()) {
    rules.push_back({flag, single, "one scenario (not --enumerate)"});
  }
  for (const char* flag : EnumerateFlags()) rules.push_back({flag, enumerate, "--enumerate"});
  for (const Rule& r : rules) {
    if (!r.applies && FlagGiven(r.flag)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--%s has no effect here: it is read only with %s", r.flag, r.when));
    }
  }
  if (enumerate && !dfs) {
    return absl::InvalidArgumentError(
        "--enumerate needs an exhaustive --strategy: dfs or plain-dfs");
  }
  return absl::OkStatus();
}

// What one run found: its counts, its metrics and its first violation.
void WriteOutcome(const properties::ExploreReport& r, const PolicyInfo& policy, ReportSink& out) {
  const sim::StrategyMetrics& m = r.metrics;
  out.Custom("metrics", absl::StrCat("metrics ", m.Summary()), [&m](properties::JsonWriter& j) {
    j.BeginObject();
    j.Key("steps").Uint(m.actor_choices);
    j.Key("numbers").Uint(m.number_choices);
    j.Key("preemptions").Uint(m.preemptions);
    j.Key("max_choices").Uint(m.max_choices);
    j.Key("max_preemptions").Uint(m.max_preemptions);
    j.EndObject();
  });
  if (r.determinism_reruns > 0) out.Field("determinism_reruns", r.determinism_reruns);
  const properties::Finding* f = r.first();
  if (f == nullptr) {
    out.Custom("violation", "violation none", [](properties::JsonWriter& j) { j.Null(); });
    return;
  }
  const std::string expected = std::string(
      properties::ExpectationName(properties::ExpectedVerdict(policy.name, f->violation.property)));
  out.Custom("violation",
             absl::StrFormat("violation %s at execution %d: %s", f->violation.property,
                             f->at_execution, f->violation.message),
             [&](properties::JsonWriter& j) {
               j.BeginObject();
               j.Key("property").String(f->violation.property);
               j.Key("at_execution").Uint(f->at_execution);
               j.Key("message").String(f->violation.message);
               j.Key("expected").String(expected);
               j.Key("fingerprint").String(f->violation.fingerprint);
               j.Key("known").Bool(f->known);
               j.Key("replay").String(f->token);
               j.EndObject();
             });
  out.Custom("fingerprint",
             absl::StrCat(f->known ? "fingerprint known: " : "fingerprint NEW: ",
                          f->violation.fingerprint),
             [&](properties::JsonWriter& j) { j.String(f->violation.fingerprint); });
  out.Custom("replay_token", absl::StrCat("replay ", f->token),
             [&](properties::JsonWriter& j) { j.String(f->token); });
}

// The exit status's judgement: a determinism failure, or a NEW violation (no
// known bug of the policy has its fingerprint).
bool Unexpected(const properties::ExploreReport& r) {
  if (!r.status.ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", r.status.message());
    return true;
  }
  const properties::Finding* f = r.first();
  return f != nullptr && !f->known;
}

// With --only_kept: the known bugs met (and passed), and FIXED? for those the
// table records for this scenario that an exhaustive search did not meet.
// Returns whether one is FIXED?.
bool WriteKnownBugs(const properties::ExploreReport& r, const PolicyInfo& policy,
                    const std::string& scenario_key, ReportSink& out) {
  std::vector<std::string> met, tokens;
  for (const properties::Finding& f : r.known_met) {
    met.push_back(f.violation.fingerprint);
    tokens.push_back(f.token);
  }
  // Fingerprints hold commas: one line each in text, then its first
  // execution's replay token (`replay TOKEN --save FILE` keeps it).
  if (out.json()) {
    out.List("known_met", met);
    out.List("known_met_replays", tokens);
  } else {
    for (std::size_t i = 0; i < met.size(); ++i) {
      out.Note(absl::StrCat("known_met ", met[i], "\nknown_met_replay ", tokens[i]));
    }
  }
  std::vector<std::string> fixed;
  if (r.exhausted) {
    for (const properties::KnownBug* bug : properties::KnownBugsOf(policy.name)) {
      if (scenario_key.empty() || bug->check_scenario != scenario_key) continue;
      if (std::find(met.begin(), met.end(), bug->fingerprint) == met.end()) {
        fixed.emplace_back(bug->fingerprint);
      }
    }
  }
  for (const std::string& fp : fixed) {
    out.Note(absl::StrCat("FIXED?: the exhaustive search did not meet the known bug ", fp,
                          " (properties/known_bugs.txt records it for this scenario)"));
  }
  if (out.json()) out.List("fixed", fixed);
  return !fixed.empty();
}

// Every 2 s on a terminal, every 10 s into a log.
void ReportProgress(const properties::ExploreProgress& p) {
  static const double interval_s = isatty(STDERR_FILENO) ? 2 : 10;
  static double last = 0;
  static std::uint64_t last_executions = 0;
  if (p.elapsed_s - last < interval_s) return;
  const double rate = static_cast<double>(p.executions - last_executions) / (p.elapsed_s - last);
  last = p.elapsed_s;
  last_executions = p.executions;
  std::string where;
  if (p.fraction >= 0) {
    where = absl::StrFormat(", depth %d, ~%.2g%% explored", p.depth, 100 * p.fraction);
  }
  absl::FPrintF(stderr, "check: %d executions in %.0f s (%.0f executions/s)%s\n", p.executions,
                p.elapsed_s, rate, where);
}

absl::StatusOr<const PolicyInfo*> PolicyFromFlags() {
  const std::string policy_name = absl::GetFlag(FLAGS_policy);
  if (policy_name.empty()) {
    return absl::InvalidArgumentError("check needs --policy (see `stackcheck policies`)");
  }
  const PolicyInfo* policy = FindPolicy(policy_name);
  if (policy != nullptr) return policy;
  std::vector<std::string> known;
  for (const PolicyInfo& p : AllPolicies()) known.emplace_back(p.name);
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown policy '%s' (known: %s)", policy_name, absl::StrJoin(known, ", ")));
}

// The strategy, its bound and depth, the budgets, the seed and the
// determinism check, into `spec`.
absl::Status SearchFromFlags(properties::ExploreSpec& spec) {
  const std::string strategy = absl::GetFlag(FLAGS_strategy);
  if (std::find(std::begin(kCheckStrategies), std::end(kCheckStrategies), strategy) ==
      std::end(kCheckStrategies)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--strategy must be %s, not '%s'", absl::StrJoin(kCheckStrategies, ", "), strategy));
  }
  const bool is_dfs = strategy == "dfs" || strategy == "plain-dfs";
  const int bound = absl::GetFlag(FLAGS_bound);
  if (bound < -1) return absl::InvalidArgumentError("--bound must be -1 (none) or at least 0");
  if (absl::GetFlag(FLAGS_iterative) && bound < 0) {
    return absl::InvalidArgumentError("--iterative needs a --bound to stop at");
  }
  if (absl::Status s = CheckFlagsApply(strategy); !s.ok()) return s;
  const int depth = absl::GetFlag(FLAGS_depth);
  if (depth < 1) return absl::InvalidArgumentError("--depth must be at least 1");
  spec.strategy = strategy;
  spec.strategy_params.seed = absl::GetFlag(FLAGS_seed);
  spec.strategy_params.preemption_bound = bound;
  spec.strategy_params.iterative_bounding = absl::GetFlag(FLAGS_iterative);
  spec.strategy_params.depth = static_cast<std::uint32_t>(depth);
  spec.max_executions = absl::GetFlag(FLAGS_max_executions);
  if (spec.max_executions == 0) spec.max_executions = is_dfs ? 10000000 : 10000;
  if (FlagGiven("time_budget_s")) {
    const double seconds = absl::GetFlag(FLAGS_time_budget_s);
    if (!(seconds > 0 && seconds < 7 * 24 * 3600)) {
      return absl::InvalidArgumentError("--time_budget_s must be positive (and under a week)");
    }
    spec.time_budget = absl::Seconds(seconds);
  }
  spec.determinism_every = absl::GetFlag(FLAGS_determinism_every);
  return absl::OkStatus();
}

// --only_kept and --property, into `spec`.
absl::Status MonitorsFromFlags(properties::ExploreSpec& spec) {
  spec.monitors.kind = absl::GetFlag(FLAGS_only_kept) ? properties::MonitorSelection::kOnlyKept
                                                      : properties::MonitorSelection::kAll;
  const std::string property = absl::GetFlag(FLAGS_property);
  if (property.empty()) return absl::OkStatus();
  if (properties::FindProperty(property) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown property '", property, "' (`stackcheck policies` lists them)"));
  }
  if (absl::GetFlag(FLAGS_only_kept)) {
    return absl::InvalidArgumentError("--property and --only_kept do not go together");
  }
  spec.monitors = properties::MonitorSelection::Named({property});
  spec.pass_unnamed = true;
  return absl::OkStatus();
}

// --jobs, --split_choices, --checkpoint and --resume, into `spec`; with
// shard flags, the shard's (cli/check_shard.h) into `shard`.
absl::Status ParallelFromFlags(properties::ExploreSpec& spec, ShardRun& shard) {
  if (absl::GetFlag(FLAGS_split_choices) > 1000) {
    return absl::InvalidArgumentError("--split_choices must be at most 1000");
  }
  if (ShardRequested()) {
    if (FlagGiven("jobs") || FlagGiven("checkpoint")) {
      return absl::InvalidArgumentError(
          "a shard is one process with no checkpoint: --jobs and --checkpoint do not apply "
          "(a shard goes on from its --part with --resume)");
    }
    if (spec.strategy_params.preemption_bound >= 0) {
      return absl::InvalidArgumentError(
          "a sharded proof works without a preemption bound only (--bound -1)");
    }
    spec.split_choices = absl::GetFlag(FLAGS_split_choices);
    absl::StatusOr<ShardRun> run = ShardFromFlags(spec, absl::GetFlag(FLAGS_resume));
    if (!run.ok()) return run.status();
    shard = *std::move(run);
    return absl::OkStatus();
  }
  if (absl::Status s = ShardFromFlags(spec, "").status(); !s.ok()) return s;
  const int jobs = absl::GetFlag(FLAGS_jobs);
  if (FlagGiven("jobs") && (jobs < 1 || jobs > 256)) {
    return absl::InvalidArgumentError("--jobs must be 1..256");
  }
  if (FlagGiven("jobs") && spec.strategy_params.preemption_bound >= 0) {
    return absl::InvalidArgumentError("--jobs works without a preemption bound only (--bound -1)");
  }
  if (FlagGiven("split_choices") && !FlagGiven("jobs")) {
    return absl::InvalidArgumentError("--split_choices has no effect without --jobs or shards");
  }
  for (const char* flag : {"checkpoint", "resume"}) {
    if (FlagGiven(flag) && !FlagGiven("jobs")) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--%s needs --jobs: a checkpoint holds a split search's shared top", flag));
    }
  }
  // Found out now, not after hours of search whose end it was to keep.
  if (FlagGiven("checkpoint")) {
    if (absl::Status s = properties::CheckWritable(absl::GetFlag(FLAGS_checkpoint), "--checkpoint");
        !s.ok()) {
      return s;
    }
  }
  if (FlagGiven("resume")) {
    const std::string resume_path = absl::GetFlag(FLAGS_resume);
    // A search can be hours deep: its top and stacks are megabytes at most.
    constexpr std::size_t kMaxCheckpointBytes = std::size_t{1} << 30;
    absl::StatusOr<std::string> text =
        properties::ReadWholeFile(resume_path, kMaxCheckpointBytes, "checkpoint");
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--resume: ", text.status().message()));
    }
    if (text->empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--resume: ", resume_path, " is empty"));
    }
    spec.resume = *std::move(text);
  }
  spec.keep_checkpoint = !absl::GetFlag(FLAGS_checkpoint).empty();
  spec.jobs = FlagGiven("jobs") ? jobs : 0;
  spec.split_choices = absl::GetFlag(FLAGS_split_choices);
  return absl::OkStatus();
}

bool IsDfs(const properties::ExploreSpec& spec) {
  return spec.strategy == "dfs" || spec.strategy == "plain-dfs";
}

// The header: what is explored, and how.
void DescribeSearch(const properties::ExploreSpec& spec, const CheckCase& check_case,
                    ReportSink& out) {
  const properties::CaseSize size = properties::SizeOf(spec.test_case);
  bool abort = false;
  for (const ThreadProgram& t : spec.test_case.scenario.threads) {
    for (const HostOp& op : t.ops) abort = abort || (op.HasRegion() && op.region.aborts);
  }
  const bool is_dfs = IsDfs(spec);
  const int bound = spec.strategy_params.preemption_bound;
  out.Note(absl::StrFormat(
      "check: policy %s, scenario %s (%s), strategy %s%s", spec.policy->name, check_case.name,
      size.ToString(), spec.strategy,
      !is_dfs ? ""
              : absl::StrFormat(", preemption bound %s%s",
                                bound < 0 ? std::string("none") : absl::StrCat(bound),
                                absl::GetFlag(FLAGS_iterative) ? " (iterative)" : "")));
  if (!out.json()) return;
  out.Field("command", "check").Field("policy", spec.policy->name);
  out.Field("scenario", check_case.name);
  out.Field("threads", size.threads).Field("regions_in_all", size.regions);
  out.Field("ops_in_all", size.ops).Field("faults", size.faults);
  out.Field("abort", abort).Field("strategy", spec.strategy);
  if (is_dfs) out.Field("bound", bound).Field("iterative", absl::GetFlag(FLAGS_iterative));
  if (!is_dfs) out.Field("seed", absl::GetFlag(FLAGS_seed));
}

// What the search covered, and what cut it short when a budget did (the
// execution cap, given or the default, or the time budget).
void DescribeCoverage(const properties::ExploreSpec& spec, const properties::ExploreReport& r,
                      ReportSink& out) {
  out.List("not_monitored", r.not_monitored);
  if (!r.reduction.empty()) out.Field("reduction", r.reduction);
  out.Field("executions", r.executions);
  out.Field("exhausted", r.exhausted);
  if (!r.exhausted && r.first() == nullptr && r.status.ok()) {
    if (r.interrupted) {
      out.Field("stopped_by", "signal");
    } else if (r.out_of_time) {
      out.Field("stopped_by", "time_budget_s");
    } else if (spec.max_executions != 0 &&
               r.executions - r.resumed_executions >= spec.max_executions) {
      out.Field("stopped_by", FlagGiven("max_executions")
                                  ? std::string("max_executions")
                                  : absl::StrFormat("the default cap of %d executions "
                                                    "(--max_executions raises it)",
                                                    spec.max_executions));
    }
  }
  // What a search cut short covered: its own estimate of the tree's share.
  if (!r.exhausted && r.explored_fraction >= 0) {
    out.Field("explored_estimate", absl::StrFormat("%.3g", r.explored_fraction));
  }
  if (r.exhausted && spec.strategy_params.preemption_bound >= 0) {
    out.Field("bound_cut", r.bound_cut);
  }
  if (r.units > 0 && spec.jobs > 0) out.Field("units", r.units);
  if (!spec.resume.empty()) {
    out.Field("resumed_executions", r.resumed_executions);
    out.Seconds("resumed_seconds", r.resumed_seconds);
  }
}

// Writes the checkpoint a stopped split search left, before the rest of the
// report, so that a failure to write it is said next to the figures it
// would have kept. Returns whether it failed.
bool KeepCheckpoint(const properties::ExploreReport& r, ReportSink& out) {
  if (r.checkpoint.empty()) return false;
  const std::string path = absl::GetFlag(FLAGS_checkpoint);
  if (absl::Status s = properties::WriteFileAtomically(path, r.checkpoint); !s.ok()) {
    absl::FPrintF(stderr, "stackcheck: --checkpoint: %s\n", s.message());
    return true;
  }
  out.Field("checkpoint", path);
  return false;
}

// After an unbounded dfs: the same case by plain DFS, for the reduction's
// ratio (both searches must end alike to compare). Returns a UsageError's
// exit status, or -1.
int ComparePlainDfs(const properties::ExploreSpec& spec, const CheckCase& check_case,
                    const properties::ExploreReport& r, ReportSink& out) {
  std::uint64_t plain_budget = absl::GetFlag(FLAGS_plain_budget);
  if (plain_budget == 0) plain_budget = std::max<std::uint64_t>(1000, 20 * r.executions);
  properties::ExploreSpec plain_spec = spec;
  plain_spec.strategy = "plain-dfs";
  plain_spec.max_executions = plain_budget;
  plain_spec.on_progress = nullptr;
  plain_spec.jobs = 0;
  const properties::ExploreReport p = properties::Explore(plain_spec);
  if (absl::Status s = CheckLivelocksAreReal(check_case, *spec.policy, p); !s.ok()) {
    return UsageError(s.message());
  }
  out.Group("plain_dfs");
  out.Field("executions", p.executions);
  out.Field("exhausted", p.exhausted);
  out.Seconds("seconds", p.seconds);
  WriteOutcome(p, *spec.policy, out);
  out.EndGroup();
  if (r.first() == nullptr && p.first() == nullptr && r.exhausted) {
    out.Ratio("reduction_ratio",
              static_cast<double>(p.executions) /
                  static_cast<double>(std::max<std::uint64_t>(1, r.executions)),
              !p.exhausted);
  }
  return -1;
}

// One scenario's search, reported.
int CheckOne(properties::ExploreSpec& spec, const CheckCase& check_case, const ShardRun& shard,
             ReportSink& out) {
  spec.on_progress = ReportProgress;
  DescribeSearch(spec, check_case, out);
  const properties::ExploreReport r = properties::Explore(spec);
  // A checkpoint the resumed search cannot take is bad input.
  if (!spec.resume.empty() && r.status.code() == absl::StatusCode::kInvalidArgument) {
    return UsageError(
        absl::StrCat("--resume ", absl::GetFlag(FLAGS_resume), ": ", r.status.message()));
  }
  DescribeCoverage(spec, r, out);
  const bool checkpoint_failed =
      spec.shard.count > 0 ? KeepPart(spec, r, shard, out) : KeepCheckpoint(r, out);
  if (IsDfs(spec)) out.Field("sleep_blocked", r.sleep_blocked);
  if (absl::GetFlag(FLAGS_iterative)) {
    out.Field("rounds", r.rounds).Field("last_bound", r.last_bound);
  }
  out.Seconds("seconds", r.seconds);
  if (absl::Status s = CheckLivelocksAreReal(check_case, *spec.policy, r); !s.ok()) {
    return UsageError(s.message());
  }
  WriteOutcome(r, *spec.policy, out);
  bool fixed = false;
  if (absl::GetFlag(FLAGS_only_kept)) fixed = WriteKnownBugs(r, *spec.policy, check_case.key, out);
  const int rc = Unexpected(r) || fixed || checkpoint_failed ? kExitMismatch : kExitOk;
  if (r.interrupted) return out.Finish(128 + CaughtSignal());
  if (!spec.resume.empty() || spec.keep_checkpoint || spec.shard.count > 0) return out.Finish(rc);
  if (spec.strategy == "dfs" && !absl::GetFlag(FLAGS_no_plain) && r.status.ok()) {
    if (const int usage = ComparePlainDfs(spec, check_case, r, out); usage >= 0) return usage;
  }
  return out.Finish(rc);
}

int RunCheck(const std::vector<std::string>& args) {
  if (MergeRequested()) return RunMerge(args);
  if (!args.empty()) return UsageError("check takes no arguments (use --policy, --strategy, ...)");
  properties::ExploreSpec spec;
  absl::StatusOr<const PolicyInfo*> policy = PolicyFromFlags();
  if (!policy.ok()) return UsageError(policy.status().message());
  spec.policy = *policy;
  if (absl::Status s = SearchFromFlags(spec); !s.ok()) return UsageError(s.message());
  absl::StatusOr<CheckCase> check_case;
  if (!EnumerateRequested()) {
    check_case = CheckCaseFromFlags();
    if (!check_case.ok()) return UsageError(check_case.status().message());
    if (absl::Status s = CheckStepBoundLetsItEnd(*check_case, **policy); !s.ok()) {
      return UsageError(s.message());
    }
    spec.test_case = check_case->test_case;
  }
  if (absl::Status s = MonitorsFromFlags(spec); !s.ok()) return UsageError(s.message());
  ShardRun shard;
  if (absl::Status s = ParallelFromFlags(spec, shard); !s.ok()) return UsageError(s.message());
  // A search can run for hours: the first SIGINT or SIGTERM stops it where it
  // is and prints what it covered (the second ends the process).
  spec.interrupt = StopOnSignals();
  ReportSink out(absl::GetFlag(FLAGS_json));
  if (!EnumerateRequested()) return CheckOne(spec, *check_case, shard, out);
  const int rc = RunEnumeration(spec, FlagGiven("max_executions") ? spec.max_executions : 0,
                                spec.time_budget, out);
  // Bad input printed its one line; main reports it under --json.
  if (rc == kExitUsage) return rc;
  return out.Finish(CaughtSignal() != 0 ? 128 + CaughtSignal() : rc);
}

const bool registered = RegisterCommand(
    {"check",
     "check --policy P [--strategy dfs|plain-dfs|random|pct] [--bound K] "
     "[--scenario regions|NAME | --scenario_file F] [--threads N] [--regions M] [--abort] "
     "[--mapped_vars K] [--warps W] [--oom_at K] ... [--jobs J [--checkpoint F] [--resume F]] "
     "[--shard_count N --shard_index I --part F [--resume F]] | check --merge PART... "
     "[--enumerate --max_threads T --max_ops N "
     "--max_faults F] [--time_budget_s S]",
     "explore one bounded scenario exhaustively (or by sampling) and report coverage", &RunCheck});

}  // namespace
}  // namespace stackcheck::cli
