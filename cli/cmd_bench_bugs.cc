// `stackcheck bench bugs`: how fast the simulator finds each buggy policy's
// bug. For every policy the expected-verdicts table says violates something,
// hunt (the campaign's explorers, one core) until one of those properties is
// violated, over --bench_seeds seeds; shrink each find. Prints
//   time_to_bug_s POLICY N     median seconds to the first violation
//   shrunk_regions POLICY N    median regions of the shrunk counterexample
// after hunting every policy, described once for text and --json. Exit 1 when
// some seed found nothing within --bench_hunt_limit_s.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"
#include "properties/catalogue.h"
#include "properties/expected_verdicts.h"
#include "properties/json_writer.h"
#include "properties/shrinker.h"

ABSL_FLAG(int, bench_seeds, 20, "bench bugs: seeds per policy (the figures are medians)");
ABSL_FLAG(double, bench_hunt_limit_s, 10, "bench bugs: give up a hunt after this many seconds");

namespace stackcheck::cli {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct PolicyFigures {
  std::string policy;
  std::vector<std::string> targets;
  int found = 0;
  int seeds = 0;
  double time_to_bug_s = 0;
  double shrunk_regions = 0;
  double executions = 0;
};

// Hunts f.targets over `seeds` seeds and fills f with the medians.
absl::Status Measure(const PolicyInfo& policy, int seeds, double limit, PolicyFigures& f) {
  std::vector<double> times, regions, executions;
  for (int seed = 1; seed <= seeds; ++seed) {
    absl::StatusOr<properties::Hunt> hunt = properties::HuntViolation(
        policy, f.targets, static_cast<std::uint64_t>(seed), UINT64_MAX, absl::Seconds(limit));
    if (!hunt.ok()) return hunt.status();
    ++f.seeds;
    if (!hunt->found) continue;
    ++f.found;
    times.push_back(hunt->seconds);
    executions.push_back(static_cast<double>(hunt->executions));
    absl::StatusOr<properties::ShrinkResult> shrunk =
        properties::Shrink(hunt->found_case, policy, *properties::FindProperty(hunt->property));
    const properties::Case& smallest = shrunk.ok() ? shrunk->smallest : hunt->found_case;
    regions.push_back(properties::RegionCount(smallest.scenario));
  }
  f.time_to_bug_s = Median(times);
  f.shrunk_regions = Median(regions);
  f.executions = Median(executions);
  return absl::OkStatus();
}

// JSON's order: each target alone, then the policy's targets together.
std::vector<const PolicyFigures*> Flattened(const std::vector<PolicyFigures>& alone,
                                            const PolicyFigures& together) {
  std::vector<const PolicyFigures*> out;
  for (const PolicyFigures& f : alone) out.push_back(&f);
  out.push_back(&together);
  return out;
}

// Per buggy policy: its targets together, then each on its own (e.g.
// v1b's deadlock, V3's B1).
struct Hunted {
  PolicyFigures together;
  std::vector<PolicyFigures> alone;
};

// The properties the expected-verdicts table says `policy` violates.
std::vector<std::string> ExpectedViolations(const PolicyInfo& policy) {
  std::vector<std::string> targets;
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    if (properties::ExpectedVerdict(policy.name, p.name) == properties::Expectation::kViolated) {
      targets.emplace_back(p.name);
    }
  }
  return targets;
}

absl::Status HuntPolicy(const PolicyInfo& policy, int seeds, double limit, Hunted& h) {
  if (absl::Status st = Measure(policy, seeds, limit, h.together); !st.ok()) return st;
  for (const std::string& target : h.together.targets) {
    PolicyFigures one;
    one.policy = absl::StrCat(policy.name, ":", target);
    one.targets = {target};
    if (absl::Status st = Measure(policy, seeds, limit, one); !st.ok()) return st;
    h.alone.push_back(std::move(one));
  }
  return absl::OkStatus();
}

bool AllFound(const std::vector<Hunted>& hunted) {
  bool all_found = true;
  for (const Hunted& h : hunted) {
    all_found &= h.together.found == h.together.seeds;
    for (const PolicyFigures& one : h.alone) all_found &= one.found == one.seeds;
  }
  return all_found;
}

std::string FiguresText(const std::vector<Hunted>& hunted) {
  std::string text;
  for (const Hunted& h : hunted) {
    const PolicyFigures& f = h.together;
    absl::StrAppendFormat(&text,
                          "# %s: hunting %s; found with %d/%d seeds, median %.0f executions\n",
                          f.policy, absl::StrJoin(f.targets, ", "), f.found, f.seeds, f.executions);
    absl::StrAppendFormat(&text, "time_to_bug_s %s %.6f\n", f.policy, f.time_to_bug_s);
    absl::StrAppendFormat(&text, "shrunk_regions %s %.1f\n", f.policy, f.shrunk_regions);
    for (const PolicyFigures& one : h.alone) {
      absl::StrAppendFormat(&text, "time_to_bug_s %s %.6f\n", one.policy, one.time_to_bug_s);
      absl::StrAppendFormat(&text, "shrunk_regions %s %.1f\n", one.policy, one.shrunk_regions);
      if (one.found != one.seeds) {
        absl::StrAppendFormat(&text, "# %s: found with only %d/%d seeds\n", one.policy, one.found,
                              one.seeds);
      }
    }
  }
  return text;
}

void WriteFiguresJson(const std::vector<Hunted>& hunted, properties::JsonWriter& j) {
  j.Key("policies").BeginArray();
  for (const Hunted& h : hunted) {
    for (const PolicyFigures* f : Flattened(h.alone, h.together)) {
      j.BeginObject();
      j.Key("policy").String(f->policy);
      j.Key("targets").BeginArray();
      for (const std::string& t : f->targets) j.String(t);
      j.EndArray();
      j.Key("found").Int(f->found);
      j.Key("time_to_bug_s").Double(f->time_to_bug_s);
      j.Key("shrunk_regions").Double(f->shrunk_regions);
      j.Key("median_executions").Double(f->executions);
      j.EndObject();
    }
  }
  j.EndArray();
}

int RunBenchBugs(const std::vector<std::string>& args) {
  if (!args.empty())
    return UsageError("usage: bench bugs [--bench_seeds=N] [--bench_hunt_limit_s=S]");
  const int seeds = absl::GetFlag(FLAGS_bench_seeds);
  if (seeds < 1 || seeds > 100000) return UsageError("--bench_seeds must be 1..100000");
  const double limit = absl::GetFlag(FLAGS_bench_hunt_limit_s);
  if (!(limit > 0)) return UsageError("--bench_hunt_limit_s must be positive");

  std::vector<Hunted> hunted;
  for (const PolicyInfo& policy : AllPolicies()) {
    Hunted h;
    h.together.policy = policy.name;
    h.together.targets = ExpectedViolations(policy);
    if (h.together.targets.empty()) continue;  // a correct policy has no bug to find
    if (absl::Status st = HuntPolicy(policy, seeds, limit, h); !st.ok()) {
      absl::FPrintF(stderr, "stackcheck: bench bugs: %s\n", st.ToString());
      return kExitMismatch;
    }
    absl::FPrintF(stderr, "bench bugs: %s measured\n", policy.name);
    hunted.push_back(std::move(h));
  }

  const bool all_found = AllFound(hunted);
  ReportSink out(absl::GetFlag(FLAGS_json), "bench bugs");
  out.Fields(absl::StrFormat("# one core; %d seeds per policy; medians", seeds),
             [seeds](properties::JsonWriter& j) { j.Key("seeds").Int(seeds); });
  out.Fields(FiguresText(hunted),
             [&hunted](properties::JsonWriter& j) { WriteFiguresJson(hunted, j); });
  out.Fields("", [all_found](properties::JsonWriter& j) { j.Key("all_found").Bool(all_found); });
  return out.Finish(all_found ? kExitOk : kExitMismatch);
}

const bool registered =
    RegisterCommand({"bench bugs", "bench bugs [--bench_seeds=N]",
                     "time to find each buggy policy's bug (median over seeds) and its shrunk size",
                     &RunBenchBugs});

}  // namespace
}  // namespace stackcheck::cli
