// `stackcheck campaign` (also what `stackcheck` with no command runs): every
// policy x every property on the simulator, random and PCT exploration within
// a time budget, then the verdict table, an explanation of each violation and
// the coverage probes no execution reached. Exit 0 when every verdict matches
// the expected-verdicts table and every violation is a known bug by its
// fingerprint (properties/known_bugs.h), 1 when a verdict differs, a NEW bug
// was met or --executions was not reached within the time budget; after SIGINT / SIGTERM, the partial
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

// Each bug met on the property: known ones in a line, a NEW one with its own
// shrunk counterexample and replay; then the known ones nobody met.
void PrintFingerprints(const properties::PropertyVerdict& v) {
  for (const properties::FingerprintVerdict& f : v.fingerprints) {
    if (f.known) {
      absl::PrintF("  known: %s (first at execution %d, met in %d)\n", f.fingerprint, f.found_at,
                   f.met);
      continue;
    }
    absl::PrintF("  NEW: %s\n", f.fingerprint);
    absl::PrintF("    found by %s exploration at execution %d (met in %d); %s %s\n", f.found_by,
                 f.found_at, f.met,
                 f.shrunk ? "shrunk to" : f.reproducible ? "kept as found:" : "NOT REPRODUCIBLE:",
                 properties::SizeOf(f.counterexample).ToString());
    absl::PrintF("    what broke: %s\n", f.message);
    if (!f.replay_path.empty()) absl::PrintF("    replay: stackcheck replay %s\n", f.replay_path);
    absl::PrintF("    token:  %s\n", f.token);
  }
  for (const std::string& fp : v.fixed) {
    absl::PrintF("  FIXED?: no execution met the known bug %s\n", fp);
  }
}

// How much each policy and property got, so a thin run is told from a clean
// one: executions per policy, the fewest that checked one of its properties,
// and the coverage probes reached.
void PrintBudget(const CampaignResult& r) {
  absl::PrintF("\nBudget (executions; a property counts those that checked it to their end):\n");
  for (const properties::PolicyResult& pr : r.policies) {
    std::string per_property;
    for (const properties::PropertyVerdict& v : pr.verdicts) {
      if (!v.available) continue;
      absl::StrAppend(&per_property, per_property.empty() ? "" : ", ", v.property->name, " ",
                      v.checked);
    }
    absl::PrintF("  %-20s %d: %s\n", pr.policy->name, pr.executions, per_property);
  }
  int reached = 0;
  for (const auto& [probe, n] : r.probes) reached += n > 0 ? 1 : 0;
  absl::PrintF("  coverage probes reached: %d of %d\n", reached, r.probes.size());
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
      PrintFingerprints(v);
    }
  }
  PrintBudget(r);
  absl::PrintF("\nCoverage probes (executions that reached each):\n");
  for (const auto& [probe, n] : r.probes) absl::PrintF("  %-40s %d\n", probe, n);
  for (const auto& [probe, n] : r.probes) {
    if (n == 0) absl::PrintF("probe %s: no execution reached it\n", probe);
  }
  absl::PrintF("\n%s\n", properties::AllMatch(table)
                             ? "every verdict matches its expectation"
                             : "SOME VERDICTS DO NOT MATCH THEIR EXPECTATION");
  if (r.new_bugs() > 0) {
    absl::PrintF("NEW: %d violation fingerprint(s) that no known bug explains "
                 "(properties/known_bugs.cc)\n",
                 r.new_bugs());
  }
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
      json.Key("fingerprints").BeginArray();
      for (const properties::FingerprintVerdict& f : v.fingerprints) {
        json.BeginObject();
        json.Key("fingerprint").String(f.fingerprint);
        json.Key("known").Bool(f.known);
        json.Key("found_by").String(f.found_by);
        json.Key("found_at").Uint(f.found_at);
        json.Key("met").Uint(f.met);
        if (!f.known) {
          const properties::CaseSize fsize = properties::SizeOf(f.counterexample);
          json.Key("shrunk").Bool(f.shrunk);
          json.Key("reproducible").Bool(f.reproducible);
          json.Key("threads").Int(fsize.threads);
          json.Key("regions").Int(fsize.regions);
          json.Key("message").String(f.message);
          json.Key("replay_file").String(f.replay_path);
          json.Key("token").String(f.token);
        }
        json.EndObject();
      }
      json.EndArray();
      json.Key("fixed").BeginArray();
      for (const std::string& fp : v.fixed) json.String(fp);
      json.EndArray();
      json.EndObject();
    }
  }
  json.EndArray();
  json.Key("new_bugs").Int(r.new_bugs());
  json.Key("budget").BeginArray();
  for (const properties::PolicyResult& pr : r.policies) {
    json.BeginObject();
    json.Key("policy").String(pr.policy->name);
    json.Key("executions").Uint(pr.executions);
    json.Key("checked").BeginObject();
    for (const properties::PropertyVerdict& v : pr.verdicts) {
      if (v.available) json.Key(v.property->name).Uint(v.checked);
    }
    json.EndObject();
    json.EndObject();
  }
  json.EndArray();
  int reached = 0;
  for (const auto& [probe, n] : r.probes) reached += n > 0 ? 1 : 0;
  json.Key("probes_reached").Int(reached);
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
  return properties::AllMatch(properties::ToVerdictTable(*r)) && r->new_bugs() == 0
             ? kExitOk
             : kExitMismatch;
}

const bool registered = RegisterCommand(
    {"campaign",
     "campaign [--policy=P,...] [--time_budget_s=S] [--executions=N] [--jobs=N]",
     "every policy x every property on the simulator; the verdict table (the default)",
     &RunCampaignCommand});

}  // namespace
}  // namespace stackcheck::cli
