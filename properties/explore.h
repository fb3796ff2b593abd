// The one way to run the simulator: Explore(spec) runs a case under a policy,
// its schedules chosen by a strategy from the registry, with a selection of
// monitors, until the strategy has nothing left, the budget is spent or the
// stop rule ends it, and returns one report. `check`, `bench`, the
// campaign's executions, `replay`, the property tests and the hardware
// side-by-side all run through here (Execute is its one-execution form).
//
//   ExploreSpec spec;
//   spec.test_case.scenario = RegionsScenario(2, 3, /*abort=*/false);
//   spec.policy = FindPolicy("event-fence");
//   spec.strategy = "dfs";
//   ExploreReport r = Explore(spec);   // r.exhausted, r.findings, r.status
//
// Determinism: the report of a spec with a seeded or exhaustive strategy and
// an execution budget is a function of the spec. A time budget trades that
// for a bounded run time; the report says which ended the run.
#ifndef STACKCHECK_PROPERTIES_EXPLORE_H_
#define STACKCHECK_PROPERTIES_EXPLORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "core/policies/registry.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/finding.h"
#include "sim/event.h"
#include "sim/monitor.h"
#include "sim/monitors/coverage_probes.h"
#include "sim/simulator.h"
#include "sim/strategies/metrics_strategy.h"
#include "sim/strategies/registry.h"
#include "sim/strategies/shard_plan.h"
#include "sim/strategy.h"

namespace stackcheck::properties {

// Which monitor-checked properties a run watches. The engine's own
// (no-deadlock, progress) are always judged.
struct MonitorSelection {
  enum Kind {
    kAll,       // every simulator monitor, but deviations the policy accepts
    kOnlyKept,  // kAll, and a violation that is a known bug of the policy
                // (properties/known_bugs.h, by fingerprint) does not stop its
                // execution: it is kept in ExploreReport::known_met and the
                // search goes on, so only a NEW bug is a finding
    kNamed,     // exactly `names`
    kNone,      // engine properties only
    kEvery,     // every simulator monitor, accepted deviations included
  };
  Kind kind = kAll;
  std::vector<std::string> names;  // kNamed

  static MonitorSelection Named(std::vector<std::string> names) {
    return {kNamed, std::move(names)};
  }
  // What a recorded violation replays under: its property's monitor alone, or
  // none when the property is the engine's (or unknown), so that no other
  // monitor can stop the execution before the recorded violation.
  static MonitorSelection RecordedProperty(absl::string_view property);
};

// The monitored properties `selection` means for `policy`, in catalogue
// order (kNamed: in the given order). Errors: a name that is not a
// monitor-checked property.
absl::StatusOr<std::vector<const PropertyInfo*>> SelectMonitors(const MonitorSelection& selection,
                                                                const PolicyInfo& policy);

// Under MonitorSelection::kOnlyKept a known bug never ends an execution, so
// kFirstViolation ends the run at the first NEW one.
enum class StopRule {
  kFirstViolation,  // end the run at the first violating execution
  kNever,           // go on to the end; keep the first finding per fingerprint
};

struct ExploreProgress {
  std::uint64_t executions = 0;
  double elapsed_s = 0;
  // Exhaustive strategies: the estimated share of the tree explored
  // (DfsStrategy::EstimatedFraction; a split search's is its shared top's),
  // and the depth of the reporting worker's stack; -1 and 0 otherwise.
  double fraction = -1;
  std::size_t depth = 0;
};

struct ExploreSpec {
  Case test_case;  // scenario, device modes; its schedule feeds sequence/replay
  const PolicyInfo* policy = nullptr;
  MonitorSelection monitors;
  // A known bug of the policy does not end an execution (see kOnlyKept, which
  // implies it); a replay of a NEW bug's file sets it too.
  bool pass_known = false;
  // With MonitorSelection::kNamed: a violation of another property (the
  // engine's no-deadlock and progress) is passed as well - it ends its
  // execution, not the run, and is no finding - so that the search goes on
  // to the named properties' bugs.
  bool pass_unnamed = false;
  std::string strategy = "dfs";         // a name in sim/strategies/registry.h
  sim::StrategyParams strategy_params;  // its schedule defaults to the case's
  std::uint64_t max_executions = 0;     // 0: until the strategy ends
  absl::Duration time_budget = absl::InfiniteDuration();
  // Polled after every execution (every worker's): set, the run stops as a
  // budget would stop it, and the report says `interrupted` (cli/interrupt.h).
  const std::atomic<bool>* interrupt = nullptr;
  StopRule stop = StopRule::kFirstViolation;
  // Re-run executions 1, 1+N, 1+2N, ... and compare trace digests (0: off).
  std::uint64_t determinism_every = 0;
  bool keep_trace = false;  // the last execution's trace and actor names
  // Footprints take every allocation to touch the one memory ledger
  // (sim::SimConfig::exact_memory_ledger). Explore sets it itself, and runs
  // again, when an execution of a reduced search outgrew the capacity.
  bool exact_memory_ledger = false;
  // An exit ends the process right after its handlers, cutting the other
  // threads at every point (sim::SimConfig::exit_cuts_every_step).
  bool exit_cuts_every_step = false;
  sim::CoverageProbes* coverage = nullptr;  // counts every execution's probes
  // Parallel exploration (dfs, plain-dfs, no preemption bound): > 0 shares
  // the nodes before `split_choices` choices (0: kDefaultSplitChoices)
  // among `jobs` worker threads, each with its own simulator, which claim
  // their options (sim/strategies/split_tree.h). One job runs the search
  // without a split, execution for execution; several find the same
  // verdicts, in about as many executions (sleep sets depend a little on
  // timing). With jobs > 1, coverage and on_execution must be unset.
  int jobs = 0;
  std::size_t split_choices = 0;
  // Parallel exploration: a search of this spec stopped earlier, to go on
  // with (ExploreReport::checkpoint's text; properties/search_checkpoint.h),
  // and whether this run keeps one if it stops unfinished.
  std::string resume;
  bool keep_checkpoint = false;
  // A sharded proof (dfs, plain-dfs, no preemption bound, no jobs): this run
  // is shard `index` of `count` processes that share nothing; each walks the
  // top (the nodes before `split_choices` choices, 0: kDefaultShardChoices;
  // properties/shard_top.h chooses one for the shards' count)
  // and explores the units that fall to it (sim/strategies/shard_plan.h), but
  // those an earlier run of the same shard finished (`before`). Its report's
  // `shard` says what it covered, for a merge (properties/proof_part.h).
  struct Shard {
    std::uint32_t count = 0;  // 0: not sharded
    std::uint32_t index = 0;
    sim::ShardProgress before;
  };
  Shard shard;
  // About twice a second, from the exploring thread (with jobs, from one
  // worker at a time: whichever explores when a report is due).
  std::function<void(const ExploreProgress&)> on_progress;
  // After every execution (not the determinism re-runs).
  std::function<void(const sim::ExecutionResult&)> on_execution;
};

struct ExploreReport {
  std::uint64_t executions = 0;
  // The strategy ran out with nothing cut short: no budget, no stop rule, no
  // error. For an exhaustive strategy (dfs) that covers every schedule.
  bool exhausted = false;
  bool out_of_time = false;  // the time budget ended the run
  bool interrupted = false;  // ExploreSpec::interrupt ended the run
  double seconds = 0;
  sim::StrategyMetrics metrics;
  std::uint64_t determinism_reruns = 0;
  std::vector<const PropertyInfo*> monitored;
  std::vector<std::string> not_monitored;  // simulator monitors left out

  // Exhaustive strategies only.
  std::string reduction;  // "dpor + sleep sets", ...
  std::uint64_t sleep_blocked = 0;
  bool bound_cut = false;  // a preemption bound pruned something
  std::uint64_t rounds = 0;
  int last_bound = -1;
  // Not exhausted: DfsStrategy::EstimatedFraction at the end (-1: none).
  double explored_fraction = -1;
  std::uint64_t units = 0;  // parallel exploration: units of the split
  // A sharded proof: what this shard covered.
  struct ShardCoverage {
    std::uint64_t units_seen = 0;          // every shard's, numbered so far
    bool walk_ended = false;               // the top walked to its end: units_seen is all
    sim::ShardProgress progress;           // earlier runs' included
    std::uint64_t walk_executions = 0;     // first executions of others' units
    std::uint64_t private_executions = 0;  // below escapes (sim/strategies/shard_plan.h)
  };
  ShardCoverage shard;
  // Parallel exploration with keep_checkpoint, stopped by a budget or an
  // interrupt with no finding: what ExploreSpec::resume takes to go on.
  std::string checkpoint;
  // A resumed search: what the runs before this one counted. executions,
  // seconds, sleep_blocked and the metrics are totals that include them.
  std::uint64_t resumed_executions = 0;
  double resumed_seconds = 0;
  // An execution's allocations outgrew the capacity under footprints that
  // took them to commute: the run stopped there (Explore runs it again with
  // the exact ledger, and says so in `reduction`).
  bool capacity_premise_broken = false;

  std::vector<Finding> findings;  // first per fingerprint, in the order found
  // kOnlyKept: the known bugs met and passed, first per fingerprint.
  std::vector<Finding> known_met;
  std::uint64_t violating_executions = 0;

  // The last execution's outcome (a one-execution run's result).
  std::uint64_t digest = 0;
  std::uint64_t steps = 0;
  bool process_exited = false;
  int exit_status = 0;
  std::vector<sim::Event> trace;         // keep_trace only
  std::vector<std::string> actor_names;  // keep_trace only, by ActorId

  // Not OK: bad spec, the engine diverged (determinism), skipped points DPOR
  // must see, or a replayed schedule did not fit the case.
  absl::Status status;

  const Finding* first() const { return findings.empty() ? nullptr : &findings[0]; }
  const Finding* FindingFor(absl::string_view property) const;
};

// The split a parallel exploration uses unless told.
inline constexpr std::size_t kDefaultSplitChoices = 16;
// The top of a sharded proof unless told (ExploreSpec::Shard).
inline constexpr std::size_t kDefaultShardChoices = 32;

ExploreReport Explore(const ExploreSpec& spec);

// The choices before which a sharded proof of `spec` has its top.
std::size_t ShardChoices(const ExploreSpec& spec);

// --- one execution, the form the campaign and the shrinker call at a rate of
// hundreds of thousands a second (no spec to copy) ---

struct Execution {
  std::optional<sim::Violation> violation;
  // With ExecuteOptions::pass_known: the known bugs met on the way, one per
  // fingerprint (none of them ended the execution).
  std::vector<sim::Violation> passed;
  // Sequence values that replay this execution through SequenceStrategy.
  std::vector<std::uint64_t> schedule;
  std::uint64_t digest = 0;
  std::uint64_t steps = 0;
  bool process_exited = false;
  int exit_status = 0;
  std::vector<sim::Event> trace;         // only with keep_trace
  std::vector<std::string> actor_names;  // indexed by ActorId; only with keep_trace
};

struct ExecuteOptions {
  bool keep_trace = false;
  // A known bug of the policy (IsKnownViolation) does not end the execution.
  bool pass_known = false;
  // With MonitorSelection::kNamed: a violation of another property (the
  // engine's no-deadlock and progress) is passed as well - it ends its
  // execution, not the run, and is no finding - so that the search goes on
  // to the named properties' bugs.
  bool pass_unnamed = false;
  sim::CoverageProbes* coverage = nullptr;
};

// Runs `c` once, checking the monitor properties in `monitored`; `strategy`
// answers the scheduling choices, or when null the case's schedule through
// the lenient sequence strategy. Errors: a monitor the simulator lacks, or
// a strategy with no execution to run.
absl::StatusOr<Execution> Execute(const Case& c, const PolicyInfo& policy,
                                  absl::Span<const PropertyInfo* const> monitored,
                                  sim::Strategy* strategy = nullptr,
                                  const ExecuteOptions& options = {});

// The simulator configuration a case runs under: its modes, capacity and
// injected faults, so a printed token replays the same.
sim::SimConfig SimConfigFor(const Case& c);

// Every property the simulator can check (the whole catalogue's sim column).
std::vector<const PropertyInfo*> SimProperties();

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_EXPLORE_H_
