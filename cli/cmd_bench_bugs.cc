// `stackcheck bench bugs`: how fast the simulator finds each buggy policy's
// bug. For every policy the expected-verdicts table says violates something,
// hunt (the campaign's explorers, one core) until one of those properties is
// violated, over --bench_seeds seeds; shrink each find. Prints
//   time_to_bug_s POLICY N     median seconds to the first violation
//   shrunk_regions POLICY N    median regions of the shrunk counterexample
// Exit 1 when some seed found nothing within --bench_hunt_limit_s.
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
        policy, f.targets, static_cast<std::uint64_t>(seed), UINT64_MAX,
        absl::Seconds(limit));
    if (!hunt.ok()) return hunt.status();
    ++f.seeds;
    if (!hunt->found) continue;
    ++f.found;
    times.push_back(hunt->seconds);
    executions.push_back(static_cast<double>(hunt->executions));
    absl::StatusOr<properties::ShrinkResult> shrunk = properties::Shrink(
        hunt->found_case, policy, *properties::FindProperty(hunt->property));
    const properties::Case& smallest = shrunk.ok() ? shrunk->smallest : hunt->found_case;
    regions.push_back(properties::RegionCount(smallest.scenario));
  }
  f.time_to_bug_s = Median(times);
  f.shrunk_regions = Median(regions);
  f.executions = Median(executions);
  return absl::OkStatus();
}

int RunBenchBugs(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("usage: bench bugs [--bench_seeds=N] [--bench_hunt_limit_s=S]");
  const int seeds = absl::GetFlag(FLAGS_bench_seeds);
  if (seeds < 1 || seeds > 100000) return UsageError("--bench_seeds must be 1..100000");
  const double limit = absl::GetFlag(FLAGS_bench_hunt_limit_s);
  if (!(limit > 0)) return UsageError("--bench_hunt_limit_s must be positive");
  const bool json = absl::GetFlag(FLAGS_json);

  std::vector<PolicyFigures> figures;
  bool all_found = true;
  if (!json) absl::PrintF("# one core; %d seeds per policy; medians\n", seeds);
  for (const PolicyInfo& policy : AllPolicies()) {
    PolicyFigures f;
    f.policy = policy.name;
    for (const properties::PropertyInfo& p : properties::AllProperties()) {
      if (properties::ExpectedVerdict(policy.name, p.name) ==
          properties::Expectation::kViolated) {
        f.targets.emplace_back(p.name);
      }
    }
    if (f.targets.empty()) continue;  // a correct policy has no bug to find
    if (absl::Status st = Measure(policy, seeds, limit, f); !st.ok()) {
      absl::FPrintF(stderr, "stackcheck: bench bugs: %s\n", st.ToString());
      return kExitMismatch;
    }
    all_found &= f.found == f.seeds;
    if (!json) {
      absl::PrintF("# %s: hunting %s; found with %d/%d seeds, median %.0f executions\n",
                   f.policy, absl::StrJoin(f.targets, ", "), f.found, f.seeds, f.executions);
      absl::PrintF("time_to_bug_s %s %.6f\n", f.policy, f.time_to_bug_s);
      absl::PrintF("shrunk_regions %s %.1f\n", f.policy, f.shrunk_regions);
    }
    // And each expected violation on its own, e.g. v1b's deadlock, V3's B1.
    for (const std::string& target : std::vector<std::string>(f.targets)) {
      PolicyFigures one;
      one.policy = absl::StrCat(policy.name, ":", target);
      one.targets = {target};
      if (absl::Status st = Measure(policy, seeds, limit, one); !st.ok()) {
        absl::FPrintF(stderr, "stackcheck: bench bugs: %s\n", st.ToString());
        return kExitMismatch;
      }
      all_found &= one.found == one.seeds;
      if (!json) {
        absl::PrintF("time_to_bug_s %s %.6f\n", one.policy, one.time_to_bug_s);
        absl::PrintF("shrunk_regions %s %.1f\n", one.policy, one.shrunk_regions);
        if (one.found != one.seeds) {
          absl::PrintF("# %s: found with only %d/%d seeds\n", one.policy, one.found, one.seeds);
        }
      }
      figures.push_back(std::move(one));
    }
    figures.push_back(std::move(f));
  }
  if (json) {
    properties::JsonWriter w;
    w.BeginObject().Key("command").String("bench bugs").Key("seeds").Int(seeds);
    w.Key("policies").BeginArray();
    for (const PolicyFigures& f : figures) {
      w.BeginObject();
      w.Key("policy").String(f.policy);
      w.Key("targets").BeginArray();
      for (const std::string& t : f.targets) w.String(t);
      w.EndArray();
      w.Key("found").Int(f.found);
      w.Key("time_to_bug_s").Double(f.time_to_bug_s);
      w.Key("shrunk_regions").Double(f.shrunk_regions);
      w.Key("median_executions").Double(f.executions);
      w.EndObject();
    }
    w.EndArray().Key("all_found").Bool(all_found).EndObject();
    PrintJson(w);
  }
  return all_found ? kExitOk : kExitMismatch;
}

const bool registered = RegisterCommand(
    {"bench bugs", "bench bugs [--bench_seeds=N]",
     "time to find each buggy policy's bug (median over seeds) and its shrunk size",
     &RunBenchBugs});

}  // namespace
}  // namespace stackcheck::cli
