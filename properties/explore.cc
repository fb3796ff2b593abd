#include "properties/explore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#ifdef STACKCHECK_ASAN
#include <sanitizer/asan_interface.h>
#endif

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/scenario_runner.h"
#include "properties/expected_verdicts.h"
#include "properties/explore_internal.h"
#include "properties/known_bugs.h"
#include "properties/replay_file.h"
#include "properties/sampled_clock.h"
#include "properties/schedule_recorder.h"
#include "properties/search_checkpoint.h"
#include "properties/stop_when.h"
#include "sim/monitors/monitor_set.h"
#include "sim/monitors/monitors.h"
#include "sim/strategies/determinism_check.h"
#include "sim/strategies/sequence_strategy.h"
#include "sim/strategies/shard_plan.h"

namespace stackcheck::properties {

using internal::ExploreOne;
using internal::ExploreParallel;
using internal::SecondsSince;
using internal::Workers;

namespace {

bool HasSimMonitor(const PropertyInfo& p) {
  return p.ObservableOn(kSimBackend) && p.checker == Checker::kMonitor;
}

// Building a Simulator maps fiber stacks; one per monitor set and thread is
// reused across runs. Monitors take the soft limit and the policy's cache
// bound at construction, so they are part of the key. Every monitor sits in one MonitorSet, which
// calls each only for the event kinds it reads.
absl::StatusOr<sim::Simulator*> SimulatorFor(absl::Span<const PropertyInfo* const> monitored,
                                             std::uint64_t soft_limit, CacheBound cache_bound) {
  thread_local absl::flat_hash_map<std::string, std::unique_ptr<sim::Simulator>> cache;
#ifdef STACKCHECK_ASAN
  // glibc keeps static TLS in a thread's stack block and hands the block to
  // later threads; GCC 12's ASan leaves an exited thread's stack poison there,
  // and reported reads of this map (the address lay just below fs_base).
  __asan_unpoison_memory_region(&cache, sizeof cache);
#endif
  std::string key = absl::StrCat(soft_limit, "/", static_cast<int>(cache_bound));
  std::vector<absl::string_view> names;
  for (const PropertyInfo* p : monitored) {
    if (p->checker != Checker::kMonitor) continue;
    absl::StrAppend(&key, "|", p->monitor_name);
    names.push_back(p->monitor_name);
  }
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  std::vector<std::unique_ptr<sim::Monitor>> monitors;
  if (!names.empty()) {
    sim::MonitorParams params;
    params.soft_limit = soft_limit;
    params.cache_bound = cache_bound;
    absl::StatusOr<std::unique_ptr<sim::Monitor>> set = sim::MakeMonitorSet(names, params);
    if (!set.ok()) return set.status();
    monitors.push_back(*std::move(set));
  }
  if (cache.size() >= 256) cache.clear();  // bound memory on long, varied runs
  auto simulator = std::make_unique<sim::Simulator>(sim::SimConfig{}, std::move(monitors));
  sim::Simulator* raw = simulator.get();
  cache.emplace(std::move(key), std::move(simulator));
  return raw;
}

// With `pass_known`, the policy's known bugs do not end an execution.
// `only`: when not empty, a violation of any other property is passed too.
void SetPass(sim::Simulator& simulator, const PolicyInfo& policy, bool pass_known,
             std::vector<std::string> only = {}) {
  if (!pass_known && only.empty()) {
    simulator.set_violation_pass(nullptr);
    return;
  }
  const absl::string_view name = policy.name;
  simulator.set_violation_pass([name, pass_known, only = std::move(only)](const sim::Violation& v) {
    if (!only.empty() && std::find(only.begin(), only.end(), v.property) == only.end()) {
      return true;
    }
    return pass_known && IsKnownViolation(name, v);
  });
}

const sim::ExecutionResult& RunOnce(sim::Simulator& simulator, sim::Strategy& strategy,
                                    const Case& c, const PolicyInfo& policy) {
  return simulator.Run(strategy, [&](Device& device, Host& host, RuntimeObserver& observer) {
    RunScenario(c.scenario, device, host, observer, policy);
  });
}

std::vector<std::string> ActorNames(const sim::Simulator& simulator,
                                    const std::vector<sim::Event>& trace) {
  std::vector<std::string> names;
  sim::ActorId max_actor = 0;
  for (const sim::Event& e : trace) {
    if (e.actor != sim::kNoActor) max_actor = std::max(max_actor, e.actor);
  }
  for (sim::ActorId a = 0; a <= max_actor && !trace.empty(); ++a) {
    names.emplace_back(simulator.ActorName(a));
  }
  return names;
}

}  // namespace

std::vector<const PropertyInfo*> SimProperties() {
  std::vector<const PropertyInfo*> out;
  for (const PropertyInfo& p : AllProperties()) {
    if (p.ObservableOn(kSimBackend)) out.push_back(&p);
  }
  return out;
}

sim::SimConfig SimConfigFor(const Case& c) {
  sim::SimConfig config;
  config.device_capacity = c.scenario.device_capacity;
  config.modes = c.modes;
  config.alloc_failure_at_call = c.scenario.faults.alloc_failure_at_call;
  config.launch_failure_at_call = c.scenario.faults.launch_failure_at_call;
  config.kernels_never_trap = !c.scenario.AnyRegionAborts();
  return config;
}

MonitorSelection MonitorSelection::RecordedProperty(absl::string_view property) {
  const PropertyInfo* p = FindProperty(property);
  if (p == nullptr || !HasSimMonitor(*p)) return {kNone, {}};
  return Named({std::string(property)});
}

absl::StatusOr<std::vector<const PropertyInfo*>> SelectMonitors(const MonitorSelection& selection,
                                                                const PolicyInfo& policy) {
  std::vector<const PropertyInfo*> out;
  switch (selection.kind) {
    case MonitorSelection::kNone:
      return out;
    case MonitorSelection::kNamed:
      for (const std::string& name : selection.names) {
        const PropertyInfo* p = FindProperty(name);
        if (p == nullptr || !HasSimMonitor(*p)) {
          return absl::InvalidArgumentError(
              absl::StrFormat("'%s' is not a property a simulator monitor checks", name));
        }
        out.push_back(p);
      }
      return out;
    case MonitorSelection::kEvery:
      for (const PropertyInfo& p : AllProperties()) {
        if (HasSimMonitor(p)) out.push_back(&p);
      }
      return out;
    case MonitorSelection::kAll:
    case MonitorSelection::kOnlyKept:
      for (const PropertyInfo& p : AllProperties()) {
        if (!HasSimMonitor(p)) continue;
        const Expectation e = ExpectedVerdict(policy.name, p.name);
        if (e == Expectation::kAcceptedDeviation) continue;
        out.push_back(&p);
      }
      return out;
  }
  return out;
}

const Finding* ExploreReport::FindingFor(absl::string_view property) const {
  for (const Finding& f : findings) {
    if (f.violation.property == property) return &f;
  }
  return nullptr;
}

namespace {

// An explorer's engine, set up from the spec: the simulator with its
// monitors and configuration, and the strategy from the registry.
struct Engine {
  sim::Simulator* simulator = nullptr;
  const sim::StrategyRow* row = nullptr;
  std::unique_ptr<sim::Strategy> strategy;
  std::shared_ptr<sim::ShardPlan> shard_plan;  // a sharded proof's
};

absl::StatusOr<Engine> SetUp(const ExploreSpec& spec, Workers* workers, ExploreReport& report) {
  if (spec.policy == nullptr) return absl::InvalidArgumentError("no policy to explore");
  const PolicyInfo& policy = *spec.policy;
  Engine engine;
  absl::StatusOr<const sim::StrategyRow*> row = sim::FindStrategy(spec.strategy);
  if (!row.ok()) return row.status();
  engine.row = *row;
  absl::StatusOr<std::vector<const PropertyInfo*>> monitored =
      SelectMonitors(spec.monitors, policy);
  if (!monitored.ok()) return monitored.status();
  report.monitored = *monitored;
  for (const PropertyInfo& p : AllProperties()) {
    if (HasSimMonitor(p) &&
        std::find(report.monitored.begin(), report.monitored.end(), &p) == report.monitored.end()) {
      report.not_monitored.emplace_back(p.name);
    }
  }
  absl::StatusOr<sim::Simulator*> sim =
      SimulatorFor(report.monitored, spec.test_case.scenario.soft_limit, policy.cache_bound);
  if (!sim.ok()) return sim.status();
  engine.simulator = *sim;
  sim::SimConfig config = SimConfigFor(spec.test_case);
  config.exact_memory_ledger = spec.exact_memory_ledger;
  config.exit_cuts_every_step = spec.exit_cuts_every_step;
  engine.simulator->set_config(config);
  SetPass(*engine.simulator, policy,
          spec.pass_known || spec.monitors.kind == MonitorSelection::kOnlyKept,
          spec.pass_unnamed && spec.monitors.kind == MonitorSelection::kNamed
              ? spec.monitors.names
              : std::vector<std::string>{});
  sim::StrategyParams params = spec.strategy_params;
  if (params.schedule.empty()) params.schedule = spec.test_case.schedule;
  if (params.max_executions == 0) params.max_executions = spec.max_executions;
  if (workers != nullptr) {
    params.max_executions = 0;  // the budget is the workers' together
    params.split_choices = workers->split_choices;
    params.split_tree = workers->tree;
  }
  if (spec.shard.count > 0) {
    engine.shard_plan =
        std::make_shared<sim::ShardPlan>(spec.shard.count, spec.shard.index, spec.shard.before);
    params.split_choices = ShardChoices(spec);
    params.shard_plan = engine.shard_plan;
  }
  engine.strategy = engine.row->make(params);
  report.reduction = engine.strategy->State(false).reduction;
  return engine;
}

// What one execution found: its passed known bugs and its violation, each
// fingerprint once. Returns whether the stop rule ends the run.
bool RecordFindings(const ExploreSpec& spec, const sim::ExecutionResult& r,
                    const ScheduleRecorder& recorder, ExploreReport& report) {
  const PolicyInfo& policy = *spec.policy;
  auto finding = [&](const sim::Violation& v) {
    Finding f;
    f.violation = v;
    f.known = IsKnownViolation(policy.name, v);
    f.at_execution = report.executions;
    f.schedule = recorder.Schedule();
    ReplayRecord record;
    record.policy = policy.name;
    record.property = v.property;
    record.test_case = spec.test_case;
    record.test_case.schedule = f.schedule;
    f.token = EncodeReplayToken(record);
    return f;
  };
  for (const sim::Violation& v : r.passed) {
    if (FindFingerprint(report.known_met, v.fingerprint) == nullptr) {
      report.known_met.push_back(finding(v));
    }
  }
  if (!r.violation) return false;
  ++report.violating_executions;
  if (FindFingerprint(report.findings, r.violation->fingerprint) == nullptr) {
    report.findings.push_back(finding(*r.violation));
  }
  // Under a pass, a known bug that still ended its execution (the engine's
  // cap on passes) does not end the run.
  const bool passing = spec.pass_known || spec.monitors.kind == MonitorSelection::kOnlyKept;
  return spec.stop == StopRule::kFirstViolation &&
         !(passing && IsKnownViolation(policy.name, *r.violation));
}

// An execution a search that sees every step cannot count: the engine
// skipped points it must see, or the search failed. (Other strategies'
// errors, a replayed schedule that does not fit, are read at the end:
// Finish.) Asked only of such searches: every other execution would pay
// for a state nobody reads.
absl::Status CheckExecution(const sim::Strategy& strategy, const sim::ExecutionResult& r) {
  const sim::SearchState state = strategy.State(false);
  // DPOR is sound only if the engine asked at every point but the last (the
  // one that finds nobody runnable).
  if (r.steps > state.points_seen + 1) {
    return absl::FailedPreconditionError("the engine skipped scheduling points that DPOR must see");
  }
  return state.status;
}

// When the next progress line is due, from the run's start.
struct Pace {
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point next_progress;
};

// The run's stop rules: the spec's budget, deadline and interrupt, and a
// split run's shared count and stop.
StopWhen::Rules StopRulesOf(const ExploreSpec& spec, const Workers* workers, const Pace& pace,
                            const ExploreReport& report) {
  StopWhen::Rules rules;
  rules.max_executions = spec.max_executions;
  rules.counted = &report.executions;
  rules.start = pace.start;
  if (spec.time_budget != absl::InfiniteDuration()) {
    rules.deadline = pace.start + absl::ToChronoNanoseconds(spec.time_budget);
  }
  rules.interrupt = spec.interrupt;
  if (workers != nullptr) {
    rules.counted_by_all = &workers->executions;
    rules.peer_stopped = &workers->stop;
  }
  return rules;
}

// Called when the next report is due (`pace.next_progress`).
void ReportProgress(const ExploreSpec& spec, const sim::Strategy& strategy, Workers* workers,
                    std::chrono::steady_clock::time_point now, Pace& pace,
                    const ExploreReport& report) {
  pace.next_progress = now + std::chrono::milliseconds(500);
  if (!spec.on_progress || (workers != nullptr && !workers->TakeProgressTurn(now))) return;
  const sim::SearchState state = strategy.State(/*estimate=*/true);
  ExploreProgress progress;
  // A split search's estimate is the shared top's, whichever worker reads
  // it (the least of the workers' was 0 while one waited for work).
  progress.executions = workers != nullptr ? workers->executions.load() : report.executions;
  progress.elapsed_s = SecondsSince(pace.start);
  progress.fraction = state.explored_fraction;
  progress.depth = state.depth;
  spec.on_progress(progress);
}

// Records one counted execution; returns whether the run ends with it.
// `sees_every_step`: the strategy's ObservesEveryStep(), fixed for a run.
bool Counted(const ExploreSpec& spec, const sim::ExecutionResult& r,
             const ScheduleRecorder& recorder, bool sees_every_step, sim::Simulator& simulator,
             Workers* workers, ExploreReport& report) {
  ++report.executions;
  if (workers != nullptr) workers->executions.fetch_add(1, std::memory_order_relaxed);
  report.digest = r.digest;
  report.steps = r.steps;
  report.process_exited = r.process_exited;
  report.exit_status = r.exit_status;
  if (spec.coverage != nullptr) {
    spec.coverage->Observe(r.trace,
                           [&simulator](std::uint32_t id) { return simulator.probes().Name(id); });
  }
  if (spec.on_execution) spec.on_execution(r);
  if (sees_every_step) {
    if (absl::Status s = CheckExecution(recorder, r); !s.ok()) {
      report.status = s;
      return true;
    }
  }
  return RecordFindings(spec, r, recorder, report);
}

// The strategy's account at the end, into the report.
void Conclude(const ExploreSpec& spec, Engine& engine, Workers* workers, bool stopped,
              ExploreReport& report) {
  sim::Strategy& strategy = *engine.strategy;
  // A recorded schedule must be used up exactly.
  if (report.status.ok()) report.status = strategy.Finish();
  const sim::SearchState state = strategy.State(/*estimate=*/true);
  report.sleep_blocked = state.sleep_blocked;
  report.rounds = state.rounds;
  report.last_bound = state.bound;
  report.bound_cut = state.bound_cut;
  report.units = state.units;
  report.exhausted = engine.row->exhaustive && !stopped && report.status.ok() && state.exhausted;
  if (engine.row->exhaustive && !report.exhausted) {
    report.explored_fraction = state.explored_fraction;
  }
  if (const sim::ShardPlan* plan = engine.shard_plan.get()) {
    report.shard.units_seen = plan->units_seen();
    report.shard.walk_ended = plan->walk_ended();
    report.shard.progress = plan->progress();
    report.shard.walk_executions = plan->walk_executions();
    report.shard.private_executions = plan->private_executions();
  }
  // Stopped unfinished, a worker leaves its stack to the tree for the
  // checkpoint (a no-op if it holds no claim).
  if (workers != nullptr && spec.keep_checkpoint && report.status.ok()) strategy.Suspend();
  if (workers != nullptr && (stopped || !report.status.ok())) {
    // Workers waiting for work would wait for this one's.
    workers->stop = true;
    workers->tree->Cancel();
  }
}

}  // namespace

namespace internal {

ExploreReport ExploreOne(const ExploreSpec& spec, Workers* workers) {
  ExploreReport report;
  absl::StatusOr<Engine> engine = SetUp(spec, workers, report);
  if (!engine.ok()) {
    report.status = engine.status();
    return report;
  }
  sim::Simulator& simulator = *engine->simulator;
  // Wrappers, innermost first: metrics count what the strategy chose, the
  // determinism check re-runs some executions (never reaching the strategy),
  // the recorder keeps the schedule that replays the execution. Without
  // re-runs the determinism check is left out: every wrapper is a call at
  // every scheduling point.
  sim::MetricsStrategy metrics(*engine->strategy);
  std::optional<sim::DeterminismCheck> determinism;
  if (spec.determinism_every != 0) {
    determinism.emplace(metrics, sim::DeterminismCheck::Options{spec.determinism_every});
  }
  ScheduleRecorder recorder(determinism ? static_cast<sim::Strategy&>(*determinism)
                                        : static_cast<sim::Strategy&>(metrics));
  Pace pace;
  pace.start = workers != nullptr ? workers->start : std::chrono::steady_clock::now();
  pace.next_progress = pace.start + std::chrono::milliseconds(500);
  // Outermost, on NewExecution only: the engine takes its points from the
  // recorder, so the stop rules cost nothing per step.
  StopWhen stop(recorder, StopRulesOf(spec, workers, pace, report));
  const bool sees_every_step = recorder.ObservesEveryStep();
  SampledClock<> clock(pace.start);
  const sim::ExecutionResult* last = nullptr;
  while (stop.NewExecution()) {
    const sim::ExecutionResult& r = RunOnce(simulator, recorder, spec.test_case, *spec.policy);
    last = &r;
    if (determinism) {
      determinism->ReportDigest(r.digest);
      report.status = determinism->status();
      if (!report.status.ok()) break;
      if (determinism->is_rerun()) {
        ++report.determinism_reruns;
        continue;
      }
    }
    // A reduced search's premise that allocations commute broke: Explore
    // runs it again with the exact ledger.
    if (r.capacity_premise_broken && !report.reduction.empty() && report.reduction != "none") {
      report.capacity_premise_broken = true;
      stop.Stop();
      break;
    }
    // The stop rule (the first violation) or an error ends the run.
    if (Counted(spec, r, recorder, sees_every_step, simulator, workers, report)) {
      stop.Stop();
      break;
    }
    const auto now = clock.Now();
    if (now >= pace.next_progress) ReportProgress(spec, recorder, workers, now, pace, report);
  }
  report.out_of_time = stop.reason() == StopWhen::Reason::kDeadline;
  report.interrupted = stop.reason() == StopWhen::Reason::kInterrupt;
  if (spec.keep_trace && last != nullptr) {
    report.trace = last->trace;
    report.actor_names = ActorNames(simulator, report.trace);
  }
  report.seconds = SecondsSince(pace.start);
  report.metrics = metrics.metrics();
  Conclude(spec, *engine, workers, stop.stopped(), report);
  return report;
}

}  // namespace internal

namespace {

// What a sharded proof needs of its spec (a usage error otherwise).
absl::Status CheckShardSpec(const ExploreSpec& spec) {
  if (spec.shard.index >= spec.shard.count) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "shard %d of %d: the index must be below the count", spec.shard.index, spec.shard.count));
  }
  if (spec.strategy != "dfs" && spec.strategy != "plain-dfs") {
    return absl::InvalidArgumentError(
        "a sharded proof needs an exhaustive strategy: dfs or plain-dfs");
  }
  if (spec.strategy_params.preemption_bound >= 0) {
    return absl::InvalidArgumentError("a sharded proof works without a preemption bound only");
  }
  if (spec.jobs > 0 || !spec.resume.empty()) {
    return absl::InvalidArgumentError(
        "a sharded proof is one process per shard: no jobs, and no checkpoint to resume");
  }
  return absl::OkStatus();
}

}  // namespace

std::size_t ShardChoices(const ExploreSpec& spec) {
  return spec.split_choices == 0 ? kDefaultShardChoices : spec.split_choices;
}

ExploreReport Explore(const ExploreSpec& spec) {
  if (spec.shard.count > 0) {
    if (absl::Status s = CheckShardSpec(spec); !s.ok()) {
      ExploreReport refused;
      refused.status = s;
      return refused;
    }
  }
  std::optional<SearchCheckpoint> resumed;
  if (!spec.resume.empty()) {
    ExploreReport refused;
    absl::StatusOr<SearchCheckpoint> c = DecodeCheckpoint(spec.resume);
    if (spec.jobs <= 0) {
      refused.status = absl::InvalidArgumentError(
          "a checkpoint is of a parallel exploration: resume it with jobs");
    } else if (!c.ok()) {
      refused.status = c.status();
    } else if (c->key != SearchKey(spec)) {
      refused.status = absl::InvalidArgumentError(
          absl::StrCat("the checkpoint is of another search\n  it ran:  ", c->key,
                       "\n  this is: ", SearchKey(spec)));
    } else if (c->binary != ExecutableDigest() || c->binary == "unknown") {
      refused.status = absl::InvalidArgumentError(
          "the checkpoint was written by another build of stackcheck, whose steps may be "
          "ordered by another dependence: run the search again from its start");
    }
    if (!refused.status.ok()) return refused;
    resumed = *std::move(c);
    if (resumed->exact_memory_ledger && !spec.exact_memory_ledger) {
      // It had switched to every allocation ordered: go on so.
      ExploreSpec exact = spec;
      exact.exact_memory_ledger = true;
      return Explore(exact);
    }
  }
  auto run = [&resumed](const ExploreSpec& s) {
    return s.jobs > 0 ? ExploreParallel(s, resumed ? &*resumed : nullptr) : ExploreOne(s, nullptr);
  };
  ExploreReport report = run(spec);
  if (!report.capacity_premise_broken || spec.exact_memory_ledger) return report;
  // The reduction took allocations to commute, and an execution allocated
  // more than the device holds: search again with every allocation ordered.
  ExploreSpec exact = spec;
  exact.exact_memory_ledger = true;
  resumed.reset();  // what it explored was under the other footprints
  ExploreReport again = run(exact);
  again.reduction = absl::StrCat(again.reduction,
                                 ", every allocation ordered (the allocations of an execution "
                                 "outgrew the device's memory)");
  return again;
}

absl::StatusOr<Execution> Execute(const Case& c, const PolicyInfo& policy,
                                  absl::Span<const PropertyInfo* const> monitored,
                                  sim::Strategy* strategy, const ExecuteOptions& options) {
  absl::StatusOr<sim::Simulator*> sim =
      SimulatorFor(monitored, c.scenario.soft_limit, policy.cache_bound);
  if (!sim.ok()) return sim.status();
  sim::Simulator& simulator = **sim;
  simulator.set_config(SimConfigFor(c));
  SetPass(simulator, policy, options.pass_known);

  std::unique_ptr<sim::SequenceStrategy> own;
  if (strategy == nullptr) {
    own = std::make_unique<sim::SequenceStrategy>(c.schedule);
    strategy = own.get();
  }
  ScheduleRecorder recorder(*strategy);
  if (!recorder.NewExecution()) {
    return absl::InvalidArgumentError("the strategy has no execution to run");
  }
  const sim::ExecutionResult& r = RunOnce(simulator, recorder, c, policy);

  Execution out;
  out.violation = r.violation;
  out.passed = r.passed;
  out.schedule = recorder.Schedule();
  out.digest = r.digest;
  out.steps = r.steps;
  out.process_exited = r.process_exited;
  out.exit_status = r.exit_status;
  if (options.coverage != nullptr) {
    options.coverage->Observe(
        r.trace, [&simulator](std::uint32_t id) { return simulator.probes().Name(id); });
  }
  if (options.keep_trace) {
    out.trace = r.trace;
    out.actor_names = ActorNames(simulator, r.trace);
  }
  return out;
}

}  // namespace stackcheck::properties
