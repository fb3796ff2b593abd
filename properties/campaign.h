// The campaign: for each policy, explore many simulated executions (generated
// schedules, random and PCT scheduling), judge every property, shrink each
// violation to a small case, write its replay file, and count coverage probes.
//
// Determinism: execution i of a campaign with seed s is fully defined by
// (s, i): its case, its explorer and the properties it checks. Shards
// (Bazel's TEST_SHARD_INDEX / TEST_TOTAL_SHARDS) take the indices i with
// i % shard_count == shard_index, --jobs threads split a shard's indices
// again, and each property's counterexample is the one found at the smallest
// index. So with a fixed execution count the merged verdicts, counts and
// counterexamples are the same for any shard count and any number of jobs.
// A time budget instead of a count trades that for a bounded run time. With a
// count, the budget is only a cap: a count it cuts short (exploring or
// shrinking) is reported in CampaignResult::shortfalls, never passed off as
// the full result.
#ifndef STACKCHECK_PROPERTIES_CAMPAIGN_H_
#define STACKCHECK_PROPERTIES_CAMPAIGN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/generators.h"
#include "properties/shrinker.h"
#include "properties/verdict_table.h"

namespace stackcheck::properties {

// The campaign's portfolio: execution i chooses its schedule with strategy
// kPortfolio[i % 3] of the registry (sim/strategies/registry.h): the case's
// generated schedule through the sequence strategy, uniform random
// scheduling, or PCT of depth 3.
inline constexpr absl::string_view kPortfolio[] = {"sequence", "random", "pct"};

struct CampaignProgress {
  std::uint64_t executions = 0;  // done so far, all policies
  double elapsed_s = 0;
  double time_left_s = 0;
  std::string policy;  // being explored
};

struct CampaignOptions {
  std::vector<const PolicyInfo*> policies;  // empty: every registered policy
  // Executions per policy (over all shards); 0 = as many as the time allows.
  std::uint64_t executions = 0;
  // Wall-clock cap for the whole campaign, shrinking included.
  absl::Duration time_budget = absl::Seconds(60);
  std::uint64_t seed = 1;
  int jobs = 1;
  int shard_index = 0;
  int shard_count = 1;
  std::string replay_dir;  // where replay files are written; "" = none
  ShrinkOptions shrink;
  GenOptions generator;
  // Called about twice a second from one worker thread.
  std::function<void(const CampaignProgress&)> on_progress;
  // When set and it becomes true (a signal handler may set it), exploration
  // stops, violations found so far are kept unshrunk and no further policy
  // is explored.
  const std::atomic<bool>* stop = nullptr;
};

// One bug met on a property: the fingerprint (sim/fingerprint.h), whether
// the known-bugs table lists it for the policy, where it was first met and,
// for a NEW one, its own shrunk counterexample.
struct FingerprintVerdict {
  std::string fingerprint;
  bool known = false;
  std::uint64_t found_at = 0;  // execution index
  absl::string_view found_by = kPortfolio[0];
  std::uint64_t met = 0;  // executions that met it
  Case original;
  // NEW only: shrunk to a case that shows this fingerprint.
  Case counterexample;
  std::string message;
  std::string replay_path;
  std::string token;
  bool shrunk = false;
  bool reproducible = true;
};

struct PropertyVerdict {
  const PropertyInfo* property = nullptr;
  bool available = true;  // false: the simulator has no checker for it
  std::string unavailable_why;
  std::uint64_t checked = 0;  // executions that checked it to their end
  bool violated = false;
  // For a violation: where it was first found and its shrunk counterexample.
  std::uint64_t found_at = 0;                  // execution index
  absl::string_view found_by = kPortfolio[0];  // the strategy
  Case original;                               // as found
  Case counterexample;                         // shrunk
  std::string message;                         // the shrunk case's violation message
  std::string replay_path;                     // "" when no replay_dir
  std::string token;                           // the replay token
  int shrink_executions = 0;
  bool shrunk = false;       // false: kept as found (the campaign was interrupted)
  bool reproducible = true;  // the found case violated again when replayed
  // Every fingerprint met, in order of first meeting (ties: by text). A known
  // bug met on the way did not end its execution, so a later NEW one in the
  // same execution is met too.
  std::vector<FingerprintVerdict> fingerprints;
  // FIXED?: the known bugs of a property the table marks violated that no
  // execution met (empty when the campaign was interrupted).
  std::vector<std::string> fixed;

  bool has_new() const;
};

struct PolicyResult {
  const PolicyInfo* policy = nullptr;
  std::uint64_t executions = 0;
  std::vector<PropertyVerdict> verdicts;  // catalogue order
};

struct CampaignResult {
  std::vector<PolicyResult> policies;
  std::uint64_t executions = 0;
  double elapsed_s = 0;
  // Every known coverage probe -> executions that hit it (0 = never).
  std::map<std::string, std::uint64_t> probes;
  // `stop` was set: the policies explored so far, the last one partly, and
  // violations kept as found or partly shrunk.
  bool interrupted = false;
  // With a fixed execution count: what the time budget cut short, one line
  // each (empty when the count was run in full and every shrink finished).
  std::vector<std::string> shortfalls;

  // NEW fingerprints anywhere.
  int new_bugs() const;
};

absl::StatusOr<CampaignResult> RunCampaign(const CampaignOptions& options);

// Merges the results of shards of one campaign (same seed and execution
// count, shard_index 0..n-1): counts add up and each property keeps the
// violation found at the smallest index, as a single unsharded run would.
CampaignResult MergeShards(std::vector<CampaignResult> shards);

// The campaign's verdicts as a table with one column, "sim".
VerdictTable ToVerdictTable(const CampaignResult& result);

// --- the pieces, for tests and benchmarks ---

// What execution `index` of a campaign seeded `seed` runs.
struct PlannedExecution {
  Case test_case;
  absl::string_view strategy;  // one of kPortfolio
  std::uint64_t strategy_seed;
  std::vector<const PropertyInfo*> checked;  // monitor-checked properties on
};
// The generators a campaign plans from: cases with a schedule for the
// sequence strategy, without one for the others (GenOptions::draw_schedule).
struct CaseGens {
  explicit CaseGens(GenOptions options = {});
  rc::Gen<Case> with_schedule;
  rc::Gen<Case> without_schedule;
};
PlannedExecution PlanExecution(const CaseGens& gens, std::uint64_t seed, std::uint64_t index,
                               const PolicyInfo& policy,
                               const std::vector<const PropertyInfo*>& available);

// Runs a planned execution; the returned Execution's schedule replays it.
// With `pass_known` (the campaign), the policy's known bugs do not end it.
absl::StatusOr<Execution> RunPlanned(const PlannedExecution& plan, const PolicyInfo& policy,
                                     sim::CoverageProbes* coverage = nullptr,
                                     bool pass_known = false);

// Explores indices 0, 1, 2, ... until some property in `targets` is violated
// (or the budget is spent): the benchmark's time-to-bug and the buggy-policy
// tests' "found within a budget".
struct Hunt {
  bool found = false;
  std::uint64_t executions = 0;  // including the failing one
  double seconds = 0;
  std::string property;
  Case found_case;  // with the schedule that replays it
  std::string message;
};
absl::StatusOr<Hunt> HuntViolation(const PolicyInfo& policy,
                                   const std::vector<std::string>& targets, std::uint64_t seed,
                                   std::uint64_t max_executions, absl::Duration time_limit,
                                   const GenOptions& generator = {});

// Properties the simulator can check now (MakeMonitor succeeds), and the
// others with the reason.
std::vector<const PropertyInfo*> AvailableProperties(
    std::vector<std::pair<const PropertyInfo*, std::string>>* unavailable = nullptr);

// Every coverage probe name the counters know.
std::vector<std::string> KnownProbes();

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_CAMPAIGN_H_
