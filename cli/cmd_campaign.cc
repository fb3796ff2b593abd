// `stackcheck campaign` (also what `stackcheck` with no command runs): every
// policy x every property on the simulator, random and PCT exploration within
// a time budget, then the verdict table, an explanation of each violation and
// the coverage probes no execution reached. Exit 0 when every verdict matches
// the expected-verdicts table, 1 when one does not or when --executions was
// not reached within the time budget; after SIGINT / SIGTERM, the partial
// results and 128 + the signal's number.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/interrupt.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"
#include "properties/json_writer.h"
#include "properties/quoted_text.h"
#include "properties/verdict_table.h"

ABSL_FLAG(std::uint64_t, executions, 0,
          "campaign: executions per policy; 0 = as many as --time_budget_s allows. "
          "A fixed count makes the result independent of --jobs and shards");
ABSL_FLAG(double, time_budget_s, 60, "campaign: wall-clock budget in seconds, shrinking included");
ABSL_FLAG(int, jobs, 0, "campaign: worker threads (0 = one per core)");
ABSL_FLAG(std::string, replay_dir, "stackcheck-replays",
          "campaign: directory for the replay files of violations ('' = none)");
ABSL_FLAG(int, shrink_executions, 3000,
          "campaign: executions each violation's shrinking may take");
ABSL_FLAG(int, shard_index, 0, "campaign: this shard's index (see --shard_count)");
ABSL_FLAG(int, shard_count, 1,
          "campaign: explore only executions i with i % shard_count == shard_index");

namespace stackcheck::cli {
namespace {

using properties::CampaignOptions;
using properties::CampaignResult;

void PrintProgress(const properties::CampaignProgress& p) {
  static const bool tty = isatty(STDERR_FILENO);
  static double last_line = -100;
  if (!tty && p.elapsed_s - last_line < 10) return;
  last_line = p.elapsed_s;
  absl::FPrintF(stderr, "%scampaign: %d executions, %.0f/s, %.0f s left (%s)%s",
                tty ? "\r" : "", p.executions, p.executions / std::max(p.elapsed_s, 1e-3),
                p.time_left_s, p.policy, tty ? "   " : "\n");
}

void PrintText(const CampaignResult& r, const CampaignOptions& o) {
  absl::PrintF("stackcheck campaign: %d policies x %d properties on the simulator, "
               "%d executions in %.1f s (%.0f/s), seed %d, %d jobs%s\n\n",
               r.policies.size(), properties::AllProperties().size(), r.executions,
               r.elapsed_s, r.executions / std::max(r.elapsed_s, 1e-3), o.seed, o.jobs,
               o.shard_count > 1 ? absl::StrFormat(", shard %d/%d", o.shard_index, o.shard_count)
                                 : "");
  if (r.interrupted) {
    absl::PrintF("INTERRUPTED: the verdicts below are partial (policies explored so far, "
                 "violations unshrunk)\n\n");
  }
  const properties::VerdictTable table = properties::ToVerdictTable(r);
  absl::PrintF("%s", properties::FormatVerdictTable(table));

  bool header = false;
  for (const properties::PolicyResult& pr : r.policies) {
    for (const properties::PropertyVerdict& v : pr.verdicts) {
      if (!v.violated) continue;
      if (!header) absl::PrintF("\nViolations:\n");
      header = true;
      absl::PrintF("\n%s / %s (expected: %s)\n", pr.policy->name, v.property->name,
                   properties::ExpectationName(
                       properties::ExpectedVerdict(pr.policy->name, v.property->name)));
      if (!v.shrunk && v.reproducible) {
        absl::PrintF("  found by %s exploration at execution %d; not shrunk (interrupted): %s\n",
                     v.found_by, v.found_at,
                     properties::SizeOf(v.counterexample).ToString());
      } else {
        absl::PrintF("  found by %s exploration at execution %d; shrunk in %d executions to %s%s\n",
                     v.found_by, v.found_at, v.shrink_executions,
                     properties::SizeOf(v.counterexample).ToString(),
                     v.reproducible ? "" : " (NOT REPRODUCIBLE when replayed: a determinism bug)");
      }
      absl::PrintF("  what broke: %s\n", v.message);
      for (absl::string_view line :
           absl::StrSplit(properties::DescribeScenario(v.counterexample.scenario), '\n',
                          absl::SkipEmpty())) {
        absl::PrintF("  %s\n", line);
      }
      const sim::SimModes& m = v.counterexample.modes;
      absl::PrintF("  simulator modes: cuMemFree %s (SEM-11), callbacks %s (SEM-07)\n",
                   m.free_waits_for_streams ? "waits for every stream" : "does not wait",
                   m.serial_callback_thread ? "on one serial thread" : "concurrent");
      if (!v.replay_path.empty()) absl::PrintF("  replay: stackcheck replay %s\n", v.replay_path);
      if (!v.token.empty()) absl::PrintF("  token:  %s\n", v.token);
    }
  }
  absl::PrintF("\nCoverage probes (executions that reached each):\n");
  for (const auto& [probe, n] : r.probes) absl::PrintF("  %-40s %d\n", probe, n);
  for (const auto& [probe, n] : r.probes) {
    if (n == 0) absl::PrintF("probe %s: no execution reached it\n", probe);
  }
  absl::PrintF("\n%s\n", properties::AllMatch(table)
                             ? "every verdict matches its expectation"
                             : "SOME VERDICTS DO NOT MATCH THEIR EXPECTATION");
  for (const std::string& s : r.shortfalls) {
    absl::PrintF("INCOMPLETE: %s (raise --time_budget_s)\n", s);
  }
}

void PrintCampaignJson(const CampaignResult& r, const CampaignOptions& o) {
  properties::JsonWriter json;
  const properties::VerdictTable table = properties::ToVerdictTable(r);
  json.BeginObject();
  json.Key("command").String("campaign");
  json.Key("seed").Uint(o.seed);
  json.Key("jobs").Int(o.jobs);
  json.Key("shard_index").Int(o.shard_index);
  json.Key("shard_count").Int(o.shard_count);
  json.Key("executions").Uint(r.executions);
  json.Key("elapsed_s").Double(r.elapsed_s);
  json.Key("all_match").Bool(properties::AllMatch(table));
  json.Key("interrupted").Bool(r.interrupted);
  json.Key("complete").Bool(r.shortfalls.empty() && !r.interrupted);
  json.Key("shortfalls").BeginArray();
  for (const std::string& s : r.shortfalls) json.String(s);
  json.EndArray();
  json.Key("verdicts");
  properties::WriteVerdictTableJson(table, json);
  json.Key("violations").BeginArray();
  for (const properties::PolicyResult& pr : r.policies) {
    for (const properties::PropertyVerdict& v : pr.verdicts) {
      if (!v.violated) continue;
      const properties::CaseSize size = properties::SizeOf(v.counterexample);
      json.BeginObject();
      json.Key("policy").String(pr.policy->name);
      json.Key("property").String(v.property->name);
      json.Key("found_by").String(v.found_by);
      json.Key("found_at").Uint(v.found_at);
      json.Key("reproducible").Bool(v.reproducible);
      json.Key("threads").Int(size.threads);
      json.Key("regions").Int(size.regions);
      json.Key("faults").Int(size.faults);
      json.Key("preemptions").Int(size.preemptions);
      json.Key("message").String(v.message);
      json.Key("replay_file").String(v.replay_path);
      json.Key("token").String(v.token);
      json.EndObject();
    }
  }
  json.EndArray();
  json.Key("probes").BeginObject();
  for (const auto& [probe, n] : r.probes) json.Key(probe).Uint(n);
  json.EndObject();
  json.EndObject();
  PrintJson(json);
}

int RunCampaignCommand(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("campaign takes no arguments (use --policy, --executions, ...)");
  CampaignOptions o;
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_policy), ',', absl::SkipEmpty())) {
    const PolicyInfo* p = FindPolicy(name);
    if (p == nullptr) {
      std::string known;
      for (const PolicyInfo& q : AllPolicies()) absl::StrAppend(&known, known.empty() ? "" : ", ", q.name);
      return UsageError(absl::StrFormat("unknown policy '%s' (known: %s)",
                                        properties::Quoted(name), known));
    }
    o.policies.push_back(p);
  }
  o.executions = absl::GetFlag(FLAGS_executions);
  const double budget = absl::GetFlag(FLAGS_time_budget_s);
  if (!(budget > 0) || budget > 7 * 24 * 3600) {
    return UsageError("--time_budget_s must be positive (and under a week)");
  }
  o.time_budget = absl::Seconds(budget);
  o.seed = absl::GetFlag(FLAGS_seed);
  o.jobs = absl::GetFlag(FLAGS_jobs);
  if (o.jobs < 0 || o.jobs > 256) return UsageError("--jobs must be 0..256");
  if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
  o.shard_index = absl::GetFlag(FLAGS_shard_index);
  o.shard_count = absl::GetFlag(FLAGS_shard_count);
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count) {
    return UsageError("--shard_index must be in [0, --shard_count)");
  }
  o.shrink.max_executions = absl::GetFlag(FLAGS_shrink_executions);
  if (o.shrink.max_executions < 0) return UsageError("--shrink_executions must be >= 0");
  o.replay_dir = absl::GetFlag(FLAGS_replay_dir);
  if (!o.replay_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.replay_dir, ec);
    if (ec) {
      return UsageError(absl::StrFormat("cannot create --replay_dir %s: %s", o.replay_dir,
                                        ec.message()));
    }
    // One run per directory: files of two runs side by side would pass off
    // an old counterexample as this run's.
    for (const auto& entry : std::filesystem::directory_iterator(o.replay_dir, ec)) {
      if (entry.path().extension() == ".replay") {
        return UsageError(absl::StrFormat(
            "--replay_dir %s already holds replay files of an earlier run (%s); move them "
            "away or choose another directory",
            o.replay_dir, entry.path().filename().string()));
      }
    }
  }
  o.on_progress = &PrintProgress;
  o.stop = StopOnSignals();
  absl::StatusOr<CampaignResult> r = properties::RunCampaign(o);
  if (isatty(STDERR_FILENO)) absl::FPrintF(stderr, "\n");
  if (!r.ok()) return RunError(absl::StrCat("campaign failed: ", r.status().ToString()));
  if (absl::GetFlag(FLAGS_json)) {
    PrintCampaignJson(*r, o);
  } else {
    PrintText(*r, o);
  }
  if (CaughtSignal() != 0) return 128 + CaughtSignal();
  if (!r->shortfalls.empty()) {
    for (const std::string& s : r->shortfalls) {
      absl::FPrintF(stderr, "stackcheck: --executions not honoured: %s\n", s);
    }
    return kExitMismatch;
  }
  return properties::AllMatch(properties::ToVerdictTable(*r)) ? kExitOk : kExitMismatch;
}

const bool registered = RegisterCommand(
    {"campaign",
     "campaign [--policy=P,...] [--time_budget_s=S] [--executions=N] [--jobs=N]",
     "every policy x every property on the simulator; the verdict table (the default)",
     &RunCampaignCommand});

}  // namespace
}  // namespace stackcheck::cli
