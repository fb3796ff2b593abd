// `stackcheck campaign` (also what `stackcheck` with no command runs): every
// policy x every property on the simulator, random and PCT exploration within
// a time budget, then the verdict table, an explanation of each violation and
// the coverage probes no execution reached. Exit 0 when every verdict matches
// the expected-verdicts table and every violation is a known bug by its
// fingerprint (properties/known_bugs.h), 1 when a verdict differs, a NEW bug
// was met or --executions was not reached within the time budget; after SIGINT / SIGTERM, the
// partial results and 128 + the signal's number.
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
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/flag_parser.h"
#include "cli/interrupt.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"
#include "properties/json_writer.h"
#include "properties/quoted_text.h"
#include "properties/verdict_table.h"

ABSL_FLAG(std::string, replay_dir, "stackcheck-replays",
          "campaign: directory for the replay files of violations, one run's only ('' = none; by "
          "default a new subdirectory of stackcheck-replays/ for each run)");
ABSL_FLAG(int, shrink_executions, 3000, "campaign: executions each violation's shrinking may take");

namespace stackcheck::cli {
namespace {

using properties::CampaignOptions;
using properties::CampaignResult;

void PrintProgress(const properties::CampaignProgress& p) {
  static const bool tty = isatty(STDERR_FILENO);
  static double last_line = -100;
  if (!tty && p.elapsed_s - last_line < 10) return;
  last_line = p.elapsed_s;
  absl::FPrintF(stderr, "%scampaign: %d executions, %.0f/s, %.0f s left (%s)%s", tty ? "\r" : "",
                p.executions, p.executions / std::max(p.elapsed_s, 1e-3), p.time_left_s, p.policy,
                tty ? "   " : "\n");
}

// Each bug met on the property: known ones in a line, a NEW one with its own
// shrunk counterexample and replay; then the known ones nobody met.
std::string FingerprintsText(const properties::PropertyVerdict& v) {
  std::string out;
  for (const properties::FingerprintVerdict& f : v.fingerprints) {
    if (f.known) {
      absl::StrAppendFormat(&out, "  known: %s (first at execution %d, met in %d)\n", f.fingerprint,
                            f.found_at, f.met);
      continue;
    }
    absl::StrAppendFormat(&out, "  NEW: %s\n", f.fingerprint);
    absl::StrAppendFormat(&out, "    found by %s exploration at execution %d (met in %d); %s %s\n",
                          f.found_by, f.found_at, f.met,
                          f.shrunk         ? "shrunk to"
                          : f.reproducible ? "kept as found:"
                                           : "NOT REPRODUCIBLE:",
                          properties::SizeOf(f.counterexample).ToString());
    absl::StrAppendFormat(&out, "    what broke: %s\n", f.message);
    if (!f.replay_path.empty()) {
      absl::StrAppendFormat(&out, "    replay: stackcheck replay %s\n", f.replay_path);
    }
    absl::StrAppendFormat(&out, "    token:  %s\n", f.token);
  }
  for (const std::string& fp : v.fixed) {
    absl::StrAppendFormat(&out, "  FIXED?: no execution met the known bug %s\n", fp);
  }
  return out;
}

void WriteFingerprintsJson(const properties::PropertyVerdict& v, properties::JsonWriter& json) {
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
}

// One violated property: where it was found, its shrunk counterexample, its
// replay, and the bugs met on it.
std::string ViolationText(const properties::PolicyResult& pr,
                          const properties::PropertyVerdict& v) {
  std::string out = absl::StrFormat(
      "\n%s / %s (expected: %s)\n", pr.policy->name, v.property->name,
      properties::ExpectationName(properties::ExpectedVerdict(pr.policy->name, v.property->name)));
  if (!v.shrunk && v.reproducible) {
    absl::StrAppendFormat(&out,
                          "  found by %s exploration at execution %d; not shrunk (interrupted): "
                          "%s\n",
                          v.found_by, v.found_at, properties::SizeOf(v.counterexample).ToString());
  } else {
    absl::StrAppendFormat(
        &out, "  found by %s exploration at execution %d; shrunk in %d executions to %s%s\n",
        v.found_by, v.found_at, v.shrink_executions,
        properties::SizeOf(v.counterexample).ToString(),
        v.reproducible ? "" : " (NOT REPRODUCIBLE when replayed: a determinism bug)");
  }
  absl::StrAppendFormat(&out, "  what broke: %s\n", v.message);
  for (absl::string_view line : absl::StrSplit(
           properties::DescribeScenario(v.counterexample.scenario), '\n', absl::SkipEmpty())) {
    absl::StrAppendFormat(&out, "  %s\n", line);
  }
  const sim::SimModes& m = v.counterexample.modes;
  absl::StrAppendFormat(&out, "  simulator modes: cuMemFree %s (SEM-11), callbacks %s (SEM-07)\n",
                        m.free_waits_for_streams ? "waits for every stream" : "does not wait",
                        m.serial_callback_thread ? "on one serial thread" : "concurrent");
  if (!v.replay_path.empty()) {
    absl::StrAppendFormat(&out, "  replay: stackcheck replay %s\n", v.replay_path);
  }
  if (!v.token.empty()) absl::StrAppendFormat(&out, "  token:  %s\n", v.token);
  return out + FingerprintsText(v);
}

void WriteViolationJson(const properties::PolicyResult& pr, const properties::PropertyVerdict& v,
                        properties::JsonWriter& json) {
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
  WriteFingerprintsJson(v, json);
  json.EndObject();
}

int ProbesReached(const CampaignResult& r) {
  int reached = 0;
  for (const auto& [probe, n] : r.probes) reached += n > 0 ? 1 : 0;
  return reached;
}

// How much each policy and property got, so a thin run is told from a clean
// one: executions per policy, the fewest that checked one of its properties,
// and the coverage probes reached.
std::string BudgetText(const CampaignResult& r) {
  std::string out =
      "\nBudget (executions; a property counts those that checked it to their end):\n";
  for (const properties::PolicyResult& pr : r.policies) {
    std::string per_property;
    for (const properties::PropertyVerdict& v : pr.verdicts) {
      if (!v.available) continue;
      absl::StrAppend(&per_property, per_property.empty() ? "" : ", ", v.property->name, " ",
                      v.checked);
    }
    absl::StrAppendFormat(&out, "  %-20s %d: %s\n", pr.policy->name, pr.executions, per_property);
  }
  absl::StrAppendFormat(&out, "  coverage probes reached: %d of %d\n", ProbesReached(r),
                        r.probes.size());
  return out;
}

void DescribeSettings(const CampaignResult& r, const CampaignOptions& o, ReportSink& out) {
  out.Fields(
      absl::StrFormat(
          "stackcheck campaign: %d policies x %d properties on the simulator, "
          "%d executions in %.1f s (%.0f/s), seed %d, %d jobs%s\n\n",
          r.policies.size(), properties::AllProperties().size(), r.executions, r.elapsed_s,
          r.executions / std::max(r.elapsed_s, 1e-3), o.seed, o.jobs,
          o.shard_count > 1 ? absl::StrFormat(", shard %d/%d", o.shard_index, o.shard_count) : ""),
      [&](properties::JsonWriter& j) {
        j.Key("seed").Uint(o.seed);
        j.Key("jobs").Int(o.jobs);
        j.Key("shard_index").Int(o.shard_index);
        j.Key("shard_count").Int(o.shard_count);
        j.Key("executions").Uint(r.executions);
        j.Key("elapsed_s").Double(r.elapsed_s);
      });
  out.Fields(r.interrupted ? "INTERRUPTED: the verdicts below are partial (policies explored so "
                             "far, violations unshrunk)\n\n"
                           : "",
             [&r](properties::JsonWriter& j) { j.Key("interrupted").Bool(r.interrupted); });
}

void DescribeViolations(const CampaignResult& r, ReportSink& out) {
  std::string violations;
  for (const properties::PolicyResult& pr : r.policies) {
    for (const properties::PropertyVerdict& v : pr.verdicts) {
      if (v.violated) absl::StrAppend(&violations, ViolationText(pr, v));
    }
  }
  out.Fields(violations.empty() ? "" : absl::StrCat("\nViolations:\n", violations),
             [&r](properties::JsonWriter& j) {
               j.Key("violations").BeginArray();
               for (const properties::PolicyResult& pr : r.policies) {
                 for (const properties::PropertyVerdict& v : pr.verdicts) {
                   if (v.violated) WriteViolationJson(pr, v, j);
                 }
               }
               j.EndArray();
             });
}

void DescribeBudget(const CampaignResult& r, ReportSink& out) {
  out.Fields(BudgetText(r), [&r](properties::JsonWriter& j) {
    j.Key("budget").BeginArray();
    for (const properties::PolicyResult& pr : r.policies) {
      j.BeginObject();
      j.Key("policy").String(pr.policy->name);
      j.Key("executions").Uint(pr.executions);
      j.Key("checked").BeginObject();
      for (const properties::PropertyVerdict& v : pr.verdicts) {
        if (v.available) j.Key(v.property->name).Uint(v.checked);
      }
      j.EndObject();
      j.EndObject();
    }
    j.EndArray();
    j.Key("probes_reached").Int(ProbesReached(r));
  });
}

void DescribeProbes(const CampaignResult& r, ReportSink& out) {
  std::string probes = "\nCoverage probes (executions that reached each):\n";
  for (const auto& [probe, n] : r.probes) absl::StrAppendFormat(&probes, "  %-40s %d\n", probe, n);
  for (const auto& [probe, n] : r.probes) {
    if (n == 0) absl::StrAppendFormat(&probes, "probe %s: no execution reached it\n", probe);
  }
  out.Fields(probes, [&r](properties::JsonWriter& j) {
    j.Key("probes").BeginObject();
    for (const auto& [probe, n] : r.probes) j.Key(probe).Uint(n);
    j.EndObject();
  });
}

// Whether the verdicts match, any bug is NEW, and the budget sufficed.
void DescribeJudgement(const CampaignResult& r, const properties::VerdictTable& table,
                       ReportSink& out) {
  const bool all_match = properties::AllMatch(table);
  std::string verdict =
      absl::StrFormat("\n%s\n", all_match ? "every verdict matches its expectation"
                                          : "SOME VERDICTS DO NOT MATCH THEIR "
                                            "EXPECTATION");
  if (r.new_bugs() > 0) {
    absl::StrAppendFormat(&verdict,
                          "NEW: %d violation fingerprint(s) that no known bug explains "
                          "(properties/known_bugs.txt)\n",
                          r.new_bugs());
  }
  for (const std::string& s : r.shortfalls) {
    absl::StrAppendFormat(&verdict, "INCOMPLETE: %s (raise --time_budget_s)\n", s);
  }
  out.Fields(verdict, [&](properties::JsonWriter& j) {
    j.Key("all_match").Bool(all_match);
    j.Key("complete").Bool(r.shortfalls.empty() && !r.interrupted);
    j.Key("shortfalls").BeginArray();
    for (const std::string& s : r.shortfalls) j.String(s);
    j.EndArray();
    j.Key("new_bugs").Int(r.new_bugs());
  });
}

// The campaign's report, text and JSON side by side: its settings, the
// verdict table, each violation, the budget, the coverage probes and the
// judgement.
void DescribeCampaign(const CampaignResult& r, const CampaignOptions& o, ReportSink& out) {
  DescribeSettings(r, o, out);
  const properties::VerdictTable table = properties::ToVerdictTable(r);
  out.Fields(properties::FormatVerdictTable(table), [&table](properties::JsonWriter& j) {
    j.Key("verdicts");
    properties::WriteVerdictTableJson(table, j);
  });
  DescribeViolations(r, out);
  DescribeBudget(r, out);
  DescribeProbes(r, out);
  DescribeJudgement(r, table, out);
}

int RunCampaignCommand(const std::vector<std::string>& args) {
  if (!args.empty())
    return UsageError("campaign takes no arguments (use --policy, --executions, ...)");
  CampaignOptions o;
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_policy), ',', absl::SkipEmpty())) {
    const PolicyInfo* p = FindPolicy(name);
    if (p == nullptr) {
      std::string known;
      for (const PolicyInfo& q : AllPolicies())
        absl::StrAppend(&known, known.empty() ? "" : ", ", q.name);
      return UsageError(
          absl::StrFormat("unknown policy '%s' (known: %s)", properties::Quoted(name), known));
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
  if (!FlagGiven("replay_dir")) {
    // The default directory is shared with exec and with earlier campaigns:
    // each run gets a subdirectory of its own, named by when it began.
    const std::string base =
        absl::StrCat(o.replay_dir, "/campaign-",
                     absl::FormatTime("%Y%m%d-%H%M%S", absl::Now(), absl::UTCTimeZone()));
    o.replay_dir = base;
    for (int n = 2; std::filesystem::exists(o.replay_dir); ++n) {
      o.replay_dir = absl::StrCat(base, "-", n);
    }
  }
  if (!o.replay_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.replay_dir, ec);
    if (ec) {
      return UsageError(
          absl::StrFormat("cannot create --replay_dir %s: %s", o.replay_dir, ec.message()));
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
  ReportSink out(absl::GetFlag(FLAGS_json), "campaign");
  DescribeCampaign(*r, o, out);
  if (CaughtSignal() != 0) return out.Finish(128 + CaughtSignal());
  for (const std::string& s : r->shortfalls) {
    absl::FPrintF(stderr, "stackcheck: --executions not honoured: %s\n", s);
  }
  const bool ok = r->shortfalls.empty() && properties::AllMatch(properties::ToVerdictTable(*r)) &&
                  r->new_bugs() == 0;
  return out.Finish(ok ? kExitOk : kExitMismatch);
}

const bool registered = RegisterCommand(
    {"campaign", "campaign [--policy=P,...] [--time_budget_s=S] [--executions=N] [--jobs=N]",
     "every policy x every property on the simulator; the verdict table (the default)",
     &RunCampaignCommand});

}  // namespace
}  // namespace stackcheck::cli
