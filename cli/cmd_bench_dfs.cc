// `stackcheck bench dfs`: what exhaustive checking costs, and what partial-
// order reduction saves.
//
// For v2-gcc11 and event-fence on the regions scenario (2 host threads x 3
// regions by default, as `check` builds it), without and with one abort:
// DFS with DPOR and sleep sets, no preemption bound, run to the end of the
// tree past any violation; then plain DFS (no reduction) on the same case,
// run only if the reduced search finished within --bench_dfs_cap (default
// 1,000,000 executions), capped by default at ten times the reduced count (at
// least 1,000,000):
// enough to show a 10x reduction, or to measure the ratio when
// plain DFS finishes first. Prints per case
//   dfs_executions POLICY SCENARIO N        dfs_exhausted ... yes|no
//   plain_dfs_executions POLICY SCENARIO N  plain_dfs_exhausted ... yes|no
//   dfs_reduction POLICY SCENARIO [>=]X     (plain / dfs executions; ">="
//                                            when plain DFS hit its cap)
//   dfs_seconds, dfs_executions_per_s, dfs_violations, plain_dfs_seconds
// then a table. Unless --bench_jobs_executions=0, it also runs one fixed
// campaign (event-fence, a correct policy, so no time goes to shrinking)
// with --jobs 1 and then 2 and prints campaign_executions_per_s for each and
// jobs_scaling (the ratio). --json prints one JSON object instead.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"
#include "properties/explore.h"
#include "properties/json_writer.h"
#include "properties/scenarios.h"

ABSL_FLAG(int, bench_dfs_threads, 2, "bench dfs: host threads of the regions scenario (1-4)");
ABSL_FLAG(int, bench_dfs_regions, 3, "bench dfs: regions per thread (1-8)");
ABSL_FLAG(std::uint64_t, bench_dfs_cap, 1000000,
          "bench dfs: execution cap of the reduced search (it reports exhausted no "
          "when reached)");
ABSL_FLAG(std::uint64_t, bench_dfs_plain_cap, 0,
          "bench dfs: execution cap of the plain-DFS comparison (0 = ten times the "
          "reduced search's count plus one, at least 1,000,000)");
ABSL_FLAG(std::uint64_t, bench_jobs_executions, 20000,
          "bench dfs: executions of the campaign timed with 1 and 2 jobs (0 = skip)");

namespace stackcheck::cli {
namespace {

struct DfsFigures {
  std::string policy;
  std::string scenario;
  properties::ExploreReport reduced;
  properties::ExploreReport plain;
  double reduction() const {
    return static_cast<double>(plain.executions) /
           static_cast<double>(std::max<std::uint64_t>(1, reduced.executions));
  }
  // Plain DFS stopped at its cap: its count, hence the ratio, is a lower bound.
  bool lower_bound() const { return !plain.exhausted; }
  // Plain DFS is run only when the reduced search finished: against a
  // search that hit its cap there is no reduction to measure.
  bool compared() const { return reduced.exhausted; }
};

struct JobsFigures {
  bool measured = false;
  std::uint64_t executions = 0;
  double per_s[2] = {0, 0};  // jobs 1, jobs 2
  double scaling() const { return per_s[0] > 0 ? per_s[1] / per_s[0] : 0; }
};

// Every schedule, past violations: the count is the size of the tree.
properties::ExploreReport Search(const properties::Case& c, const PolicyInfo& policy, bool reduce,
                                 std::uint64_t cap) {
  properties::ExploreSpec spec;
  spec.test_case = c;
  spec.policy = &policy;
  spec.strategy = reduce ? "dfs" : "plain-dfs";
  spec.max_executions = cap;
  spec.stop = properties::StopRule::kNever;
  return properties::Explore(spec);
}

std::set<std::string> Violated(const properties::ExploreReport& r) {
  std::set<std::string> names;
  for (const properties::Finding& f : r.findings) names.insert(f.violation.property);
  return names;
}

std::string Violations(const properties::ExploreReport& r) {
  const std::set<std::string> names = Violated(r);
  return names.empty() ? "none" : absl::StrJoin(names, ",");
}

// The same campaign twice, with 1 and 2 worker threads: wall-clock rates.
absl::Status MeasureJobs(std::uint64_t executions, JobsFigures& f) {
  const PolicyInfo* policy = FindPolicy("event-fence");
  if (policy == nullptr) return absl::NotFoundError("policy event-fence is not in this build");
  f.executions = executions;
  for (int jobs = 1; jobs <= 2; ++jobs) {
    properties::CampaignOptions o;
    o.policies = {policy};
    o.executions = executions;
    o.time_budget = absl::Hours(1);  // the count, not the clock, ends it
    o.jobs = jobs;
    absl::StatusOr<properties::CampaignResult> r = properties::RunCampaign(o);
    if (!r.ok()) return r.status();
    f.per_s[jobs - 1] = static_cast<double>(r->executions) / std::max(1e-9, r->elapsed_s);
  }
  f.measured = true;
  return absl::OkStatus();
}

// Text: one `KEY POLICY SCENARIO VALUE` line per figure, then a table for people.
std::string CasesText(const std::vector<DfsFigures>& figures) {
  std::string out;
  for (const DfsFigures& f : figures) {
    const char* p = f.policy.c_str();
    const char* s = f.scenario.c_str();
    absl::StrAppendFormat(&out, "dfs_executions %s %s %d\n", p, s, f.reduced.executions);
    absl::StrAppendFormat(&out, "dfs_exhausted %s %s %s\n", p, s,
                          f.reduced.exhausted ? "yes" : "no");
    absl::StrAppendFormat(&out, "dfs_seconds %s %s %.2f\n", p, s, f.reduced.seconds);
    absl::StrAppendFormat(&out, "dfs_executions_per_s %s %s %.0f\n", p, s,
                          f.reduced.executions / std::max(1e-9, f.reduced.seconds));
    absl::StrAppendFormat(&out, "dfs_violations %s %s %s\n", p, s, Violations(f.reduced));
    absl::StrAppendFormat(&out, "plain_dfs_executions %s %s %d\n", p, s, f.plain.executions);
    absl::StrAppendFormat(&out, "plain_dfs_exhausted %s %s %s\n", p, s,
                          f.plain.exhausted ? "yes" : "no");
    absl::StrAppendFormat(&out, "plain_dfs_seconds %s %s %.2f\n", p, s, f.plain.seconds);
    if (f.compared()) {
      absl::StrAppendFormat(&out, "dfs_reduction %s %s %s%.1f\n", p, s, f.lower_bound() ? ">=" : "",
                            f.reduction());
    } else {
      absl::StrAppendFormat(&out, "dfs_reduction %s %s n/a (the reduced search hit its cap)\n", p,
                            s);
    }
  }
  absl::StrAppendFormat(&out, "#\n# %-12s %-10s %12s %4s %14s %10s %8s %10s  %s\n", "policy",
                        "scenario", "dpor", "exh", "plain dfs", "reduction", "seconds", "exec/s",
                        "violations");
  for (const DfsFigures& f : figures) {
    const std::string plain = f.compared()
                                  ? absl::StrCat(f.plain.executions, f.lower_bound() ? "+" : " ")
                                  : std::string("- ");
    const std::string reduction =
        f.compared() ? absl::StrFormat("%s%.1f", f.lower_bound() ? ">=" : "", f.reduction())
                     : std::string("n/a");
    absl::StrAppendFormat(&out, "# %-12s %-10s %12d %4s %14s %10s %8.2f %10.0f  %s\n", f.policy,
                          f.scenario, f.reduced.executions, f.reduced.exhausted ? "yes" : "no",
                          plain, reduction, f.reduced.seconds,
                          f.reduced.executions / std::max(1e-9, f.reduced.seconds),
                          Violations(f.reduced));
  }
  return out;
}

// The figures, text and JSON side by side.
void DescribeDfs(const std::vector<DfsFigures>& figures, const JobsFigures& jobs, ReportSink& out) {
  out.Fields(CasesText(figures), [&figures](properties::JsonWriter& w) {
    w.Key("cases").BeginArray();
    for (const DfsFigures& f : figures) {
      w.BeginObject();
      w.Key("policy").String(f.policy).Key("scenario").String(f.scenario);
      w.Key("dfs_executions").Uint(f.reduced.executions);
      w.Key("dfs_exhausted").Bool(f.reduced.exhausted);
      w.Key("dfs_seconds").Double(f.reduced.seconds);
      w.Key("dfs_executions_per_s")
          .Double(f.reduced.executions / std::max(1e-9, f.reduced.seconds));
      w.Key("dfs_violations").BeginArray();
      for (const std::string& v : Violated(f.reduced)) w.String(v);
      w.EndArray();
      w.Key("plain_dfs_executions").Uint(f.plain.executions);
      w.Key("plain_dfs_exhausted").Bool(f.plain.exhausted);
      w.Key("plain_dfs_seconds").Double(f.plain.seconds);
      w.Key("plain_dfs_run").Bool(f.compared());
      if (f.compared()) {
        w.Key("reduction").Double(f.reduction());
        w.Key("reduction_is_lower_bound").Bool(f.lower_bound());
      }
      w.EndObject();
    }
    w.EndArray();
  });
  if (!jobs.measured) return;
  out.Fields(absl::StrFormat("campaign_executions_per_s jobs=1 %.0f\n"
                             "campaign_executions_per_s jobs=2 %.0f\n"
                             "jobs_scaling 1->2 %.2f",
                             jobs.per_s[0], jobs.per_s[1], jobs.scaling()),
             [&jobs](properties::JsonWriter& w) {
               w.Key("jobs").BeginObject();
               w.Key("campaign_executions").Uint(jobs.executions);
               w.Key("executions_per_s_1").Double(jobs.per_s[0]);
               w.Key("executions_per_s_2").Double(jobs.per_s[1]);
               w.Key("scaling").Double(jobs.scaling());
               w.EndObject();
             });
}

int RunBenchDfs(const std::vector<std::string>& args) {
  if (!args.empty()) {
    return UsageError(
        "bench dfs takes no arguments (flags: --bench_dfs_threads, "
        "--bench_dfs_regions, --bench_dfs_cap, --bench_dfs_plain_cap, "
        "--bench_jobs_executions)");
  }
  const int threads = absl::GetFlag(FLAGS_bench_dfs_threads);
  const int regions = absl::GetFlag(FLAGS_bench_dfs_regions);
  if (threads < 1 || threads > 4) return UsageError("--bench_dfs_threads must be 1..4");
  if (regions < 1 || regions > 8) return UsageError("--bench_dfs_regions must be 1..8");
  const std::uint64_t cap = absl::GetFlag(FLAGS_bench_dfs_cap);
  const std::uint64_t plain_cap = absl::GetFlag(FLAGS_bench_dfs_plain_cap);
  if (cap == 0) return UsageError("--bench_dfs_cap must be at least 1");
  ReportSink out(absl::GetFlag(FLAGS_json), "bench dfs");
  out.Note(absl::StrFormat(
      "# one core; regions scenario %d threads x %d regions; DPOR + sleep sets without a "
      "preemption bound, past violations; plain DFS capped at %s",
      threads, regions,
      plain_cap > 0 ? absl::StrCat(plain_cap)
                    : std::string("10x the reduced count (at least 1,000,000)")));
  std::vector<DfsFigures> figures;
  for (const char* name : {"v2-gcc11", "event-fence"}) {
    const PolicyInfo* policy = FindPolicy(name);
    if (policy == nullptr) {
      absl::FPrintF(stderr, "stackcheck: bench dfs: policy %s is not in this build\n", name);
      return kExitMismatch;
    }
    for (bool abort : {false, true}) {
      DfsFigures f;
      f.policy = name;
      f.scenario = absl::StrCat(threads, "x", regions, abort ? "+abort" : "");
      properties::Case c;
      c.scenario = properties::RegionsScenario(threads, regions, abort);
      f.reduced = Search(c, *policy, /*reduce=*/true, cap);
      if (f.compared()) {
        const std::uint64_t this_cap =
            plain_cap > 0 ? plain_cap
                          : std::max<std::uint64_t>(1000000, 10 * f.reduced.executions + 1);
        f.plain = Search(c, *policy, /*reduce=*/false, this_cap);
      }
      for (const properties::ExploreReport* r : {&f.reduced, &f.plain}) {
        if (!r->status.ok()) {
          absl::FPrintF(stderr, "stackcheck: bench dfs: %s %s: %s\n", name, f.scenario,
                        r->status.ToString());
          return kExitMismatch;
        }
      }
      figures.push_back(std::move(f));
    }
  }
  JobsFigures jobs;
  if (const std::uint64_t n = absl::GetFlag(FLAGS_bench_jobs_executions); n > 0) {
    if (absl::Status st = MeasureJobs(n, jobs); !st.ok()) {
      absl::FPrintF(stderr, "stackcheck: bench dfs: %s\n", st.ToString());
      return kExitMismatch;
    }
  }
  DescribeDfs(figures, jobs, out);
  return out.Finish(kExitOk);
}

const bool registered = RegisterCommand(
    {"bench dfs",
     "bench dfs [--bench_dfs_regions=M] [--bench_dfs_plain_cap=N] [--bench_jobs_executions=N]",
     "exhaustive checking: DPOR vs plain DFS executions, and campaign scaling 1 -> 2 jobs",
     &RunBenchDfs});

}  // namespace
}  // namespace stackcheck::cli
