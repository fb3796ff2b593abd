// Parallel exploration: `jobs` worker threads over the units of one split
// search (sim/strategies/split_tree.h), their reports merged into one.
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "properties/explore_internal.h"
#include "properties/worker_pool.h"

namespace stackcheck::properties::internal {
namespace {

// The choice counts of two runs together (the execution count is the
// caller's: workers' and parts' are summed differently).
void AddChoiceMetrics(sim::StrategyMetrics& into, const sim::StrategyMetrics& from) {
  into.actor_choices += from.actor_choices;
  into.number_choices += from.number_choices;
  into.preemptions += from.preemptions;
  into.max_choices = std::max(into.max_choices, from.max_choices);
  into.max_preemptions = std::max(into.max_preemptions, from.max_preemptions);
}

void Merge(ExploreReport& into, ExploreReport&& from) {
  into.executions += from.executions;
  into.exhausted = into.exhausted && from.exhausted;
  into.capacity_premise_broken = into.capacity_premise_broken || from.capacity_premise_broken;
  into.out_of_time = into.out_of_time || from.out_of_time;
  into.interrupted = into.interrupted || from.interrupted;
  into.seconds = std::max(into.seconds, from.seconds);
  AddChoiceMetrics(into.metrics, from.metrics);
  into.determinism_reruns += from.determinism_reruns;
  into.sleep_blocked += from.sleep_blocked;
  into.explored_fraction = std::min(into.explored_fraction, from.explored_fraction);
  AppendNewFingerprints(into.findings, from.findings);
  AppendNewFingerprints(into.known_met, from.known_met);
  into.violating_executions += from.violating_executions;
  if (into.status.ok()) into.status = from.status;
}

// Adds what the runs before a resumed one counted.
void AddResumed(ExploreReport& into, const ExploreReport& before) {
  into.resumed_executions = before.executions;
  into.resumed_seconds = before.seconds;
  into.executions += before.executions;
  into.seconds += before.seconds;
  into.sleep_blocked += before.sleep_blocked;
  into.metrics.executions += before.metrics.executions;
  AddChoiceMetrics(into.metrics, before.metrics);
  // The earlier runs' first meetings come first.
  std::vector<Finding> known = before.known_met;
  AppendNewFingerprints(known, into.known_met);
  into.known_met = std::move(known);
}

}  // namespace

ExploreReport ExploreParallel(const ExploreSpec& spec, const SearchCheckpoint* resumed) {
  ExploreReport report;
  if (spec.strategy != "dfs" && spec.strategy != "plain-dfs") {
    report.status = absl::InvalidArgumentError(
        "parallel exploration needs an exhaustive strategy: dfs or plain-dfs");
    return report;
  }
  if (spec.strategy_params.preemption_bound >= 0) {
    report.status =
        absl::InvalidArgumentError("parallel exploration works without a preemption bound only");
    return report;
  }
  if (spec.jobs > 1 && (spec.coverage != nullptr || spec.on_execution)) {
    report.status = absl::InvalidArgumentError(
        "parallel exploration takes no coverage probes nor per-execution callback "
        "(but with one job)");
    return report;
  }
  Workers workers;
  workers.count = spec.jobs;
  workers.split_choices = spec.split_choices == 0 ? kDefaultSplitChoices : spec.split_choices;
  if (resumed != nullptr) {
    if (absl::Status s = workers.tree->Load(resumed->tree); !s.ok()) {
      report.status =
          absl::InvalidArgumentError(absl::StrCat("the checkpoint's search tree: ", s.message()));
      return report;
    }
  }
  workers.start = std::chrono::steady_clock::now();
  std::vector<ExploreReport> reports(spec.jobs);
  RunOnWorkers(spec.jobs, [&](int w) { reports[w] = ExploreOne(spec, &workers); });
  report = std::move(reports[0]);
  for (int w = 1; w < spec.jobs; ++w) Merge(report, std::move(reports[w]));
  report.metrics.executions = report.executions;
  report.seconds = SecondsSince(workers.start);
  if (report.exhausted) report.explored_fraction = -1;
  report.reduction =
      absl::StrFormat("%s, split after %d choices into %d units, %d jobs", report.reduction,
                      workers.split_choices, workers.tree->claims(), spec.jobs);
  if (resumed != nullptr) AddResumed(report, resumed->totals);
  if (spec.keep_checkpoint && !report.exhausted && report.status.ok() && report.findings.empty() &&
      !report.capacity_premise_broken) {
    SearchCheckpoint checkpoint;
    checkpoint.key = SearchKey(spec);
    checkpoint.binary = ExecutableDigest();
    checkpoint.exact_memory_ledger = spec.exact_memory_ledger;
    checkpoint.totals = report;
    checkpoint.tree = workers.tree->Save();
    report.checkpoint = EncodeCheckpoint(checkpoint);
  }
  return report;
}

}  // namespace stackcheck::properties::internal
