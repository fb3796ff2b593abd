#include "hardware/steered_replay.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/cu_result.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/explore.h"
#include "sim/event.h"
#include "sim/event_payloads.h"
#include "sim/strategies/sequence_strategy.h"
#include "sim/strategy.h"

namespace stackcheck::hardware {
namespace {

// Replays a schedule and notes, at every preemption, which actor was held
// back in favour of which, every host step taken while a woken thread waited,
// and every number choice. It sees every step (the replayed schedule answers
// only the points with two or more candidates), so it knows which actors were
// blocked in between.
class PreemptionWatcher : public sim::Strategy {
 public:
  struct Preemption {
    sim::ActorId held_back;
    sim::ActorId chosen;
    bool chosen_had_acted;  // the chosen actor took a step before
  };
  explicit PreemptionWatcher(const std::vector<std::uint64_t>& schedule) : inner_(schedule) {}
  bool NewExecution() override { return inner_.NewExecution(); }
  bool ObservesEveryStep() const override { return true; }
  std::size_t NextActor(const sim::SchedulingPoint& point) override {
    const std::size_t chosen = point.runnable.size() >= 2 ? inner_.NextActor(point) : 0;
    const sim::ActorId actor = point.runnable[chosen].actor;
    const bool continues = point.current >= 0 && chosen == static_cast<std::size_t>(point.current);
    if (point.current >= 0) {
      acted_.insert(point.runnable[point.current].actor);
      if (!continues) {
        preemptions_.push_back(
            {point.runnable[point.current].actor, actor, acted_.count(actor) > 0});
      }
    }
    // An actor that acted, disappeared from the runnable set (it blocked) and
    // is back was woken; it waits for its turn until it is chosen, and on
    // hardware goes on at once past the step that returns from the wait too
    // (a message it then prints is a scheduling point of its own).
    std::set<sim::ActorId> now;
    for (const sim::Candidate& c : point.runnable) {
      now.insert(c.actor);
      if (acted_.count(c.actor) > 0 && previous_.count(c.actor) == 0) woken_.insert(c.actor);
    }
    if (returning_.count(actor) > 0) {
      returning_.erase(actor);
      woken_.erase(actor);
    } else if (woken_.count(actor) > 0) {
      returning_.insert(actor);
    }
    if (!continues) {
      for (sim::ActorId waiting : woken_) {
        if (waiting != actor && now.count(waiting) > 0) {
          passed_woken_.push_back({waiting, actor, true});
        }
      }
    }
    previous_ = std::move(now);
    acted_.insert(actor);
    return chosen;
  }
  std::uint64_t NextNumber(std::uint64_t n) override {
    const std::uint64_t v = inner_.NextNumber(n);
    if (v != 0) ++nonzero_numbers_;
    return v;
  }
  const std::vector<Preemption>& preemptions() const { return preemptions_; }
  // A step by `chosen` taken while `held_back`, woken, was runnable too and
  // `chosen` was not simply going on with its own run.
  const std::vector<Preemption>& passed_woken() const { return passed_woken_; }
  int nonzero_numbers() const { return nonzero_numbers_; }

 private:
  sim::SequenceStrategy inner_;
  std::vector<Preemption> preemptions_;
  std::vector<Preemption> passed_woken_;
  std::set<sim::ActorId> acted_;
  std::set<sim::ActorId> previous_;  // runnable at the previous point
  std::set<sim::ActorId> woken_;
  std::set<sim::ActorId> returning_;  // woken, and chosen once since
  int nonzero_numbers_ = 0;
};

std::string NameOf(const std::vector<std::string>& names, sim::ActorId a) {
  return a < names.size() ? names[a] : absl::StrCat("actor ", a);
}

// The scenario's program thread a simulator actor runs, or -1. Host
// threads are named by ordinal: T0 is the main thread, which spawns the
// programs' threads in order, so T<k> runs program thread k-1.
int HostIndex(const std::string& name) {
  int ordinal = 0;
  if (absl::StartsWith(name, "T") &&
      absl::SimpleAtoi(absl::string_view(name).substr(1), &ordinal) && ordinal >= 1) {
    return ordinal - 1;
  }
  return -1;
}

// Any host thread, the main thread T0 included.
bool IsHostThread(const std::string& name) {
  int ordinal = 0;
  return absl::StartsWith(name, "T") &&
         absl::SimpleAtoi(absl::string_view(name).substr(1), &ordinal);
}

bool IsCallback(const std::vector<std::string>& names, sim::ActorId a) {
  return absl::StartsWith(NameOf(names, a), "callback");
}

// What a schedule does to the driver's callback thread while it waits for a
// lock inside its body, once a host thread released that lock. Each field
// says why, or is "".
struct CallbackLockWait {
  // The callback, woken, is kept waiting while a host thread goes on to a
  // driver call or the process's exit, and no thread took the lock in
  // between: on hardware the woken callback takes the free lock within
  // microseconds, and the runner can delay a callback only before it starts.
  std::string held_after_wake;
  // Another host thread (not the one that released it) takes the lock first:
  // on hardware the two race for the free lock.
  std::string beaten_to_lock;
};

CallbackLockWait ScanCallbackLockWaits(const std::vector<sim::Event>& trace,
                                       const std::vector<std::string>& names) {
  struct Waiting {
    std::uint32_t mutex = 0;
    sim::ActorId releaser = sim::kNoActor;  // set while the lock is released
  };
  std::map<sim::ActorId, Waiting> waiting;  // callbacks blocked on a mutex
  CallbackLockWait found;
  for (const sim::Event& ev : trace) {
    if (IsCallback(names, ev.actor)) {
      if (ev.kind == sim::EventKind::kMutexBlock) {
        waiting[ev.actor] = Waiting{ev.As<sim::payload::Mutex>().mutex, sim::kNoActor};
      } else {
        waiting.erase(ev.actor);  // it moved on
      }
      continue;
    }
    if (ev.kind == sim::EventKind::kMutexUnlock || ev.kind == sim::EventKind::kMutexLock) {
      const std::uint32_t mutex = ev.As<sim::payload::Mutex>().mutex;
      for (auto& [cb, w] : waiting) {
        if (w.mutex != mutex) continue;
        if (ev.kind == sim::EventKind::kMutexUnlock) {
          w.releaser = ev.actor;
          continue;
        }
        if (w.releaser != sim::kNoActor && w.releaser != ev.actor &&
            IsHostThread(NameOf(names, ev.actor)) && found.beaten_to_lock.empty()) {
          found.beaten_to_lock = absl::StrFormat(
              "the schedule lets %s take mutex m%d, released by %s, before the driver's "
              "callback thread (%s) that waited for it; on hardware the two race for it",
              NameOf(names, ev.actor), mutex, NameOf(names, w.releaser), NameOf(names, cb));
        }
        w.releaser = sim::kNoActor;
      }
      continue;
    }
    const bool host_moves_on =
        ev.kind == sim::EventKind::kDriverCall || ev.kind == sim::EventKind::kProcessExit;
    if (!host_moves_on || !found.held_after_wake.empty()) continue;
    for (const auto& [cb, w] : waiting) {
      if (w.releaser == sim::kNoActor) continue;
      found.held_after_wake = absl::StrFormat(
          "the schedule keeps the driver's callback thread (%s) waiting for a "
          "lock already released while %s goes on (%s); the runner can delay a "
          "callback only before it starts",
          NameOf(names, cb), NameOf(names, ev.actor), sim::EventKindName(ev.kind));
      break;
    }
  }
  return found;
}

// A message to the user: a fatal error, or an error on a non-fatal path.
bool IsMessage(sim::EventKind kind) {
  return kind == sim::EventKind::kFatalReported || kind == sim::EventKind::kErrorReported;
}

// A host thread that could go on but is kept between two of its steps while
// virtual time passes, and whose next step sees what happened meanwhile: a
// driver call failing with the sticky error a kernel raised, a lock another
// actor took, or a message to the user that another thread's message now
// precedes. On hardware a runnable thread goes on within
// microseconds. Waits the thread itself asked for are not that: a blocking
// driver call, a mutex it waits for, a sleep, a join, or the time before its
// program starts. Returns why, or "".
std::string HostKeptWhileTimePasses(const std::vector<sim::Event>& trace,
                                    const std::vector<std::string>& names) {
  std::map<sim::ActorId, std::size_t> last;  // position of each thread's last event
  for (std::size_t j = 0; j < trace.size(); ++j) {
    const sim::Event& ev = trace[j];
    if (!IsHostThread(NameOf(names, ev.actor))) continue;
    auto it = last.find(ev.actor);
    const bool seen = it != last.end();
    const std::size_t i = seen ? it->second : 0;
    last[ev.actor] = j;
    if (!seen) continue;
    const sim::Event& before = trace[i];
    if (ev.time_ns <= before.time_ns) continue;
    switch (before.kind) {
      case sim::EventKind::kDriverCallBlock:
      case sim::EventKind::kMutexBlock:
      case sim::EventKind::kSleep:
      case sim::EventKind::kThreadStart:
        continue;
      default:
        break;
    }
    bool sees = false;
    for (std::size_t k = i + 1; k < j && !sees; ++k) {
      const sim::Event& mid = trace[k];
      sees = (ev.kind == sim::EventKind::kDriverCall &&
              ev.As<sim::payload::Call>().result != CuResult::kSuccess &&
              mid.kind == sim::EventKind::kStickyError) ||
             (ev.kind == sim::EventKind::kMutexBlock && mid.kind == sim::EventKind::kMutexLock &&
              mid.As<sim::payload::Mutex>().mutex == ev.As<sim::payload::Mutex>().mutex) ||
             (IsMessage(ev.kind) && IsMessage(mid.kind));
    }
    if (!sees) continue;
    return absl::StrFormat(
        "the schedule keeps %s, which could go on, between its %s and its %s while "
        "%s of virtual time pass and another actor changes what that step sees; "
        "the runner delays host threads only at their start",
        NameOf(names, ev.actor), sim::EventKindName(before.kind), sim::EventKindName(ev.kind),
        absl::FormatDuration(absl::Nanoseconds(ev.time_ns - before.time_ns)));
  }
  return "";
}

// Replays the record's schedule under `watcher`, keeping the trace. Fails
// unless the replay ends in the recorded violation.
absl::StatusOr<properties::Execution> ExecuteWatched(const properties::ReplayRecord& record,
                                                     const properties::PropertyInfo& info,
                                                     const PolicyInfo& policy,
                                                     PreemptionWatcher& watcher) {
  std::vector<const properties::PropertyInfo*> checked;
  if (info.checker == properties::Checker::kMonitor) checked.push_back(&info);
  properties::ExecuteOptions keep;
  keep.keep_trace = true;
  absl::StatusOr<properties::Execution> e =
      properties::Execute(record.test_case, policy, checked, &watcher, keep);
  if (!e.ok()) return e.status();
  if (!e->violation.has_value() || e->violation->property != record.property) {
    return absl::FailedPreconditionError(
        absl::StrCat("the schedule does not replay to a violation of ", record.property));
  }
  return e;
}

// A preemption that holds the driver's callback thread back while it could
// run. Returns why, or "".
std::string CallbackHeldBack(const std::vector<PreemptionWatcher::Preemption>& preemptions,
                             const std::vector<std::string>& names) {
  for (const PreemptionWatcher::Preemption& p : preemptions) {
    const std::string held = NameOf(names, p.held_back);
    const std::string chosen = NameOf(names, p.chosen);
    if (absl::StartsWith(held, "callback")) {
      return absl::StrFormat(
          "the schedule holds the driver's callback thread (%s) back while it "
          "could run, in favour of %s; host-side delays act only before a "
          "callback starts",
          held, chosen);
    }
  }
  return "";
}

// A preemption that holds a host thread back after its start, which the
// runner's start delays cannot do. Returns why, or "".
std::string HostHeldBack(const std::vector<PreemptionWatcher::Preemption>& preemptions,
                         const std::vector<std::string>& names) {
  for (const PreemptionWatcher::Preemption& p : preemptions) {
    const std::string held = NameOf(names, p.held_back);
    const std::string chosen = NameOf(names, p.chosen);
    if (IsHostThread(held) && absl::StartsWith(chosen, "callback")) {
      return absl::StrFormat(
          "the schedule holds %s back while it could run, in favour of the driver's "
          "callback thread (%s); the runner delays host threads only at their start",
          held, chosen);
    }
    if (HostIndex(held) >= 0 && HostIndex(chosen) >= 0 && p.chosen_had_acted) {
      return absl::StrFormat(
          "the schedule holds %s back in favour of %s, which had already "
          "started; the runner delays host threads only at their start",
          held, chosen);
    }
  }
  return "";
}

// Why the runner cannot steer the hardware along the schedule at all, or "".
std::string NotSteerableBecause(const PreemptionWatcher& watcher,
                                const CallbackLockWait& callback_wait,
                                const std::vector<std::string>& names) {
  if (watcher.nonzero_numbers() > 0) {
    return "the schedule makes a data choice (which callbacks run at once, which "
           "allocation fails) that the driver makes on hardware";
  }
  if (!callback_wait.held_after_wake.empty()) return callback_wait.held_after_wake;
  if (std::string why = CallbackHeldBack(watcher.preemptions(), names); !why.empty()) return why;
  return HostHeldBack(watcher.preemptions(), names);
}

// A host thread run while another, woken from its wait, is kept waiting for
// its turn. Returns why, or "".
std::string HostPassesWokenHost(const std::vector<PreemptionWatcher::Preemption>& passed_woken,
                                const std::vector<std::string>& names) {
  for (const PreemptionWatcher::Preemption& p : passed_woken) {
    const std::string woken = NameOf(names, p.held_back);
    const std::string chosen = NameOf(names, p.chosen);
    if (IsHostThread(woken) && IsHostThread(chosen)) {
      return absl::StrFormat(
          "the schedule runs %s while %s, woken from its wait, is kept waiting for its "
          "turn; on hardware the two race (the OS picks), and the runner delays host "
          "threads only at their start",
          chosen, woken);
    }
  }
  return "";
}

// Why steering can only approximate the schedule, or "".
std::string ApproximateBecause(const PreemptionWatcher& watcher,
                               const CallbackLockWait& callback_wait,
                               const std::vector<sim::Event>& trace,
                               const std::vector<std::string>& names) {
  if (std::string why = HostPassesWokenHost(watcher.passed_woken(), names); !why.empty()) {
    return why;
  }
  if (std::string why = HostKeptWhileTimePasses(trace, names); !why.empty()) return why;
  return callback_wait.beaten_to_lock;
}

// Kernels stay pending as long as the counterexample needed: stretched
// when one was still pending at a region's start or at the violation.
bool PendingKernelMatters(const std::vector<sim::Event>& trace) {
  std::set<std::uint32_t> pending;
  bool pending_matters = false;
  for (const sim::Event& ev : trace) {
    switch (ev.kind) {
      case sim::EventKind::kKernelEnqueue:
        pending.insert(ev.As<sim::payload::Kernel>().kernel);
        break;
      case sim::EventKind::kKernelEnd:
      case sim::EventKind::kKernelDropped:
        pending.erase(ev.As<sim::payload::Kernel>().kernel);
        break;
      case sim::EventKind::kRegionBegin:
        pending_matters |= !pending.empty();
        break;
      default:
        break;
    }
  }
  return pending_matters || !pending.empty();
}

// Host threads by when each first did something past starting: (trace
// position, virtual time, program thread).
using StartOrder = std::vector<std::tuple<std::size_t, std::uint64_t, int>>;

StartOrder HostStartOrder(const std::vector<sim::Event>& trace,
                          const std::vector<std::string>& names) {
  std::map<sim::ActorId, std::pair<std::size_t, std::uint64_t>> first_step;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const sim::Event& ev = trace[i];
    if (ev.kind == sim::EventKind::kThreadStart) continue;
    first_step.emplace(ev.actor, std::make_pair(i, ev.time_ns));
  }
  StartOrder order;
  for (const auto& [actor, at] : first_step) {
    const int index = HostIndex(NameOf(names, actor));
    if (index >= 0) order.emplace_back(at.first, at.second, index);
  }
  std::sort(order.begin(), order.end());
  return order;
}

// Host threads start in the order the counterexample first ran them. A
// thread that first acted later in virtual time (after a kernel ran) starts
// that much later, unless the kernels are stretched (the virtual times no
// longer apply); one that acted at the same time as an earlier one, but
// after it, starts kSpawnGap after it. Empty when there is no order to keep.
std::vector<absl::Duration> SpawnDelays(const StartOrder& order, int threads,
                                        bool kernels_stretched,
                                        const std::vector<sim::Event>& trace) {
  std::vector<absl::Duration> delays;
  if (threads <= 1 || order.empty()) return delays;
  delays.assign(threads, absl::ZeroDuration());
  const std::uint64_t start_ns = std::get<1>(order.front());
  absl::Duration previous = absl::ZeroDuration();
  std::uint64_t previous_ns = start_ns;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const auto [at, ns, index] = order[rank];
    absl::Duration delay;
    if (rank == 0) {
      delay = absl::ZeroDuration();
    } else if (kernels_stretched || ns <= previous_ns) {
      delay = previous + kSpawnGap;
    } else {
      delay = std::max(previous + absl::Nanoseconds(ns - previous_ns),
                       absl::Nanoseconds(ns - start_ns));
    }
    if (index < threads) delays[index] = delay;
    previous = delay;
    previous_ns = ns;
  }
  // A thread the counterexample never ran past its start did nothing before
  // the violation: it starts once everything the others did is over.
  std::set<int> ran;
  for (const auto& entry : order) ran.insert(std::get<2>(entry));
  const std::uint64_t end_ns = trace.empty() ? start_ns : trace.back().time_ns;
  for (int index = 0; index < threads; ++index) {
    if (ran.count(index) > 0) continue;
    delays[index] =
        previous + absl::Nanoseconds(end_ns - std::min(end_ns, previous_ns)) + kNeverRanGap;
  }
  return delays;
}

}  // namespace

bool HardwareObserves(absl::string_view property) {
  const properties::PropertyInfo* p = properties::FindProperty(property);
  return p != nullptr && p->ObservableOn(properties::kCudaBackend);
}

std::string Steering::Describe() const {
  if (!steerable) return absl::StrCat("not steerable: ", not_steerable);
  std::string out;
  if (spawn_delays.empty() && min_kernel_duration == absl::ZeroDuration()) {
    out = "none needed: no thread start order, no kernel kept pending";
  } else {
    std::vector<std::string> delays;
    for (absl::Duration d : spawn_delays) delays.push_back(absl::FormatDuration(d));
    out = absl::StrFormat("start delays [%s], kernels at least %s", absl::StrJoin(delays, ", "),
                          absl::FormatDuration(min_kernel_duration));
  }
  if (!approximate.empty()) absl::StrAppend(&out, "; approximate: ", approximate);
  return out;
}

absl::StatusOr<Steering> SteeringFor(const properties::ReplayRecord& record) {
  Steering steering;
  const properties::PropertyInfo* info = properties::FindProperty(record.property);
  if (info == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown property '", record.property, "'"));
  }
  if (!HardwareObserves(record.property)) {
    steering.not_steerable = absl::StrCat("the GPU cannot observe ", record.property);
    return steering;
  }
  const PolicyInfo* policy = FindPolicy(record.policy);
  if (policy == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("the replay's policy '", record.policy, "' is unknown"));
  }
  PreemptionWatcher watcher(record.test_case.schedule);
  absl::StatusOr<properties::Execution> e = ExecuteWatched(record, *info, *policy, watcher);
  if (!e.ok()) return e.status();
  const std::vector<std::string>& names = e->actor_names;

  const CallbackLockWait callback_wait = ScanCallbackLockWaits(e->trace, names);
  steering.not_steerable = NotSteerableBecause(watcher, callback_wait, names);
  if (!steering.not_steerable.empty()) return steering;
  steering.approximate = ApproximateBecause(watcher, callback_wait, e->trace, names);
  const bool pending_matters = PendingKernelMatters(e->trace);
  if (pending_matters) steering.min_kernel_duration = kPendingKernel;
  steering.spawn_delays = SpawnDelays(HostStartOrder(e->trace, names),
                                      static_cast<int>(record.test_case.scenario.threads.size()),
                                      pending_matters, e->trace);
  steering.steerable = true;
  return steering;
}

absl::StatusOr<SteeredReplayResult> ReplayOnHardware(absl::string_view replay,
                                                     const SteeredReplayOptions& options) {
  absl::StatusOr<properties::ReplayRecord> record = properties::LoadReplay(replay);
  if (!record.ok()) return record.status();
  return ReplayOnHardware(*record, options);
}

absl::StatusOr<SteeredReplayResult> ReplayOnHardware(const properties::ReplayRecord& record,
                                                     const SteeredReplayOptions& options) {
  const PolicyInfo* policy = FindPolicy(record.policy);
  if (policy == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("the replay's policy '", record.policy, "' is unknown"));
  }
  SteeredReplayResult result;
  result.record = record;
  result.scenario_text = properties::DescribeScenario(record.test_case.scenario);

  // Hardware first (each run forks), then the simulator.
  for (int i = 0; i < options.runs; ++i) {
    absl::StatusOr<HardwareRunResult> run =
        options.run_on_hardware
            ? options.run_on_hardware(record.test_case.scenario, *policy, options.run)
            : RunOnHardware(record.test_case.scenario, *policy, options.run);
    if (!run.ok()) return run.status();
    const PropertyResult* p = run->Find(record.property);
    if (p != nullptr && p->verdict == HwVerdict::kViolated) ++result.reproduced;
    const bool setup_failed = run->ending == HardwareRunResult::Ending::kSetupFailed;
    result.runs.push_back(*std::move(run));
    if (setup_failed) break;
  }
  // Only the recorded property (the engine's always-on ones aside): another
  // monitor firing first, e.g. an accepted deviation, would stop the replay
  // before the recorded violation. Strictly, as `stackcheck replay` runs it:
  // a schedule that does not fit is bad input, not some other interleaving.
  properties::ExploreSpec spec;
  spec.test_case = record.test_case;
  spec.policy = policy;
  spec.monitors = properties::MonitorSelection::RecordedProperty(record.property);
  spec.strategy = "replay";
  const properties::ExploreReport sim = properties::Explore(spec);
  if (!sim.status.ok()) return sim.status;
  if (const properties::Finding* f = sim.first(); f != nullptr) {
    result.sim_violated = f->violation.property == record.property;
    result.sim_message = absl::StrCat(f->violation.property, ": ", f->violation.message);
  } else {
    result.sim_message = "no violation on replay";
  }
  return result;
}

std::string FormatSteeredReplay(const SteeredReplayResult& r, const SteeredReplayOptions& options) {
  std::string out = absl::StrFormat("counterexample: %s / %s\n%s\n", r.record.policy,
                                    r.record.property, r.scenario_text);
  absl::StrAppendFormat(&out, "simulator (recorded schedule): %s\n", r.sim_message);
  std::vector<std::string> delays;
  for (absl::Duration d : options.run.spawn_delays) {
    delays.push_back(absl::FormatDuration(d));
  }
  absl::StrAppendFormat(&out, "steering: thread start delays [%s], kernels at least %s\n",
                        absl::StrJoin(delays, ", "),
                        absl::FormatDuration(options.run.min_kernel_duration));
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const HardwareRunResult& run = r.runs[i];
    const PropertyResult* p = run.Find(r.record.property);
    absl::StrAppendFormat(&out, "gpu run %d: %s in %.2f s; %s %s%s\n", i, run.EndingText(),
                          run.seconds, r.record.property,
                          p ? HwVerdictName(p->verdict) : "not judged",
                          p && !p->evidence.empty() ? ": " + p->evidence : "");
    for (const PropertyResult& other : run.properties) {
      if (other.property != r.record.property && other.verdict == HwVerdict::kViolated) {
        absl::StrAppendFormat(&out, "    also %s: %s\n", other.property, other.evidence);
      }
    }
    for (const std::string& f : run.facts) {
      absl::StrAppendFormat(&out, "    %s\n", f);
    }
  }
  absl::StrAppendFormat(&out, "reproduced on hardware: %d of %d run(s)\n", r.reproduced,
                        r.runs.size());
  return out;
}

}  // namespace stackcheck::hardware
