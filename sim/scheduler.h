// The simulator's engine: actors, scheduling points, the event log and the
// virtual clock of one execution at a time.
//
// All actors run inside the one OS thread that calls RunExecution. Host threads
// and callbacks are fibers; GPU streams are actors without a stack whose steps
// (start a kernel, end it, dispatch a callback, complete an event...) the
// scheduler executes itself, through GpuModel. At every scheduling point the
// engine builds the set of actors that can move, each with the footprint of
// its next step, and asks the Strategy which one moves; it switches fibers only
// when another actor is chosen. An actor that waits records why (WaitReason)
// and is runnable again once that condition holds, so "nobody can move but
// somebody waits" is a deadlock, reported with its wait-for cycle. An actor
// that cannot move is not looked at again until the event that can change
// that (sim/watch_set.h), and the device's answers are kept until it changes.
//
// Ending an execution early (process exit, violation, deadlock, step bound)
// leaves fibers suspended mid-call. Teardown resumes each one and throws
// ExecutionAbandoned from its scheduling point, so its stack unwinds and every
// destructor runs: no memory is lost across millions of executions. An Unlock
// point (called from MutexLock's destructor, which must not throw) returns
// normally instead, and the fiber is stopped at its next point. Fibers unwind
// newest first and the one that ended the process last, because threads
// refer to their parents' locals. When the process ended by returning from
// main, main's locals are already gone, so the other fibers are abandoned
// without running any of their code (a real process never runs it either);
// whatever their frames owned on the heap is then lost. An exit from frames
// that own nothing (Host::ExitOwningNothing: the scenario runner's main
// after its work) leaves that one stack as it is and unwinds the others: an
// unwind costs about a thousand instructions per frame (callgrind), at every execution's end.
// What exit handlers hold (KeepUntilTeardown) is destroyed after the stacks.
#ifndef STACKCHECK_SIM_SCHEDULER_H_
#define STACKCHECK_SIM_SCHEDULER_H_

#include <boost/context/fiber.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/actor.h"
#include "sim/device_books.h"
#include "sim/driver_api.h"
#include "sim/event.h"
#include "sim/event_payloads.h"
#include "sim/fiber.h"
#include "sim/gpu_model.h"
#include "sim/monitor.h"
#include "sim/strategy.h"
#include "sim/trace/digest.h"
#include "sim/watch_set.h"

namespace stackcheck::sim {

struct ForcedUnwindAccess;

class Scheduler final : public SimView {
 public:
  Scheduler();
  ~Scheduler() override;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void set_gpu(GpuModel* gpu) { gpu_ = gpu; }
  // The GpuModel calls this whenever state its readiness answers read
  // changes (queues, op phases, callback work, event records, streams): the
  // engine re-asks the device only after a change, not at every step.
  void DeviceChanged() {
    ++device_epoch_;
    watch_.Wake(WatchSet::kWakeOnDevice);
  }
  // The same, for a change of the serial callback thread's queue: only this
  // one wakes that thread when it waits for work.
  void CallbackWorkChanged() {
    DeviceChanged();
    watch_.Wake(WatchSet::kWakeOnCallbackWork);
  }
  void set_step_bound(std::uint64_t bound) { step_bound_ = bound; }
  // Events reach each monitor (a set's members one by one) only for the
  // kinds it reads.
  void set_monitors(std::vector<std::unique_ptr<Monitor>> monitors);
  // A violation `pass` accepts (by its fingerprint: a known bug) does not
  // stop the execution: it is kept in passed() and the execution goes on,
  // so that a second bug after it is still seen. Null: every violation stops.
  void set_violation_pass(std::function<bool(const Violation&)> pass) { pass_ = std::move(pass); }
  // The violations passed in this execution, one per fingerprint, in order.
  std::vector<Violation>& passed() { return passed_; }

  // --- one execution, driven from the OS thread ---
  // Clears all per-execution state (keeps buffers) and resets the monitors.
  void BeginExecution(Strategy* strategy);
  // Runs actors until the execution ends, then unwinds every fiber left.
  void RunExecution();

  // --- actors ---
  // A fiber actor; with `start_when`, it is created blocked and starts once
  // that holds (the idle callback thread).
  ActorId SpawnFiber(ActorKind kind, std::function<void()> body,
                     const WaitReason& start_when = WaitReason{});
  ActorId AddGpuActor(std::uint32_t stream);
  // What a just-created fiber's first step touches (default: its own life).
  void set_first_step(ActorId actor, const Footprint& next) { actors_[actor].next = next; }
  // A fiber waiting at a point will touch `next` instead of what it declared:
  // the current step changed what that step does. The current step must be
  // dependent with the one it redeclares (so a search that reorders them
  // sees the change) - a sleeping actor is woken by it anyway.
  void Redeclare(ActorId actor, const Footprint& next) {
    Actor& a = actors_[actor];
    StoreWithProgram(&a.next, next, kRunsProgram, a.guards_held);
  }
  ActorId current() const { return current_; }
  ActorKind kind(ActorId actor) const { return actors_[actor].kind; }
  // Whether the acting fiber is a stream callback's (the serial callback
  // thread or a concurrent callback worker).
  bool CurrentIsCallback() const {
    return current_ != kMainContext && IsCallbackContext(actors_[current_].kind);
  }
  ActorState state(ActorId actor) const { return actors_[actor].state; }
  std::size_t actor_count() const { return actor_count_; }

  // --- scheduling points, called on the acting fiber ---
  // The current actor's next step touches `next`; lets the strategy choose.
  void Point(const Footprint& next, PointKind kind = PointKind::kMayUnwind);
  // The current actor cannot continue until `reason` holds. Returns once it
  // holds and the actor has been chosen (callers re-check in a loop).
  void Block(const WaitReason& reason, const Footprint& next);
  // What the process's end leaves on the fibers' stacks, for teardown.
  enum class Stacks : std::uint8_t {
    kIntact,             // exit(): every frame lives; unwind them all
    kCallerOwnsNothing,  // exit() from frames that own nothing: leave the
                         // caller's, unwind the others'
    kMainReturned,       // main's locals are destroyed, and other threads
                         // may refer to them: unwind nothing
  };
  // The simulated process ends (after exit handlers ran): no actor moves again.
  [[noreturn]] void EndProcess(int status, Stacks stacks = Stacks::kIntact);
  // The exit handlers start running on the current actor. With
  // `program_wide`, from here on its steps are program-wide
  // (Footprint::program), whatever else they touch: a real program's
  // handlers (glibc's, the program's own) change memory no footprint names.
  // The runtime model's handler (CloseDevice, a policy's Close) declares what
  // it touches like any other code - mutexes, driver calls, Shared state (an
  // access without its guard is a point of its own) - so its steps keep
  // their own footprints.
  void ExitHandlersStart(bool program_wide) {
    handlers_actor_ = current_;
    handlers_from_ = trace_.size();
    handlers_program_wide_ = program_wide;
  }
  // The actor that runs the exit handlers (kNoActor before any exit), and
  // the index of the first event they log.
  ActorId handlers_actor() const { return handlers_actor_; }
  // The handlers running are a real program's (ExitHandlersStart's
  // `program_wide`).
  bool handlers_program_wide() const { return handlers_program_wide_; }
  std::size_t handlers_from() const { return handlers_from_; }
  // Memory the simulated program released that fiber code may still touch
  // (a destroyed mutex): freed after teardown, when no fiber runs any more.
  void Bury(void* object, void (*free)(void*)) { graveyard_.push_back({object, free}); }
  // Keeps `object` (and what it owns) until teardown, where it is destroyed
  // after the fibers' stacks, as every destructor the process left behind
  // is: then nothing it runs is logged or scheduled.
  void KeepUntilTeardown(std::function<void()> object) { kept_.push_back(std::move(object)); }
  bool tearing_down() const { return tearing_down_; }

  // --- mutexes (the host model's, kept here for the wait-for graph) ---
  std::uint32_t NewMutex(absl::string_view name);
  ActorId mutex_owner(std::uint32_t mutex) const { return mutexes_[mutex].owner; }
  void set_mutex_owner(std::uint32_t mutex, ActorId owner) {
    MutexState& m = mutexes_[mutex];
    const ActorId before = m.owner;
    m.owner = owner;
    // A waiter may take it now.
    if (owner == kNoActor) watch_.Wake(WatchSet::kWakeOnMutex);
    if (m.guard_bit != 0) GuardsChanged(before, owner);
  }
  // The actor reading under the mutex in a pass (Mutex::ReadUnder: one step
  // while nobody holds it), which guards what it reads as a lock would.
  ActorId mutex_reader(std::uint32_t mutex) const { return mutexes_[mutex].reader; }
  void set_mutex_reader(std::uint32_t mutex, ActorId reader) { mutexes_[mutex].reader = reader; }
  // Makes `mutex` a guard of shared state (core/shared.h) and returns its
  // guard bit (Footprint::held): the steps of its owner declare it.
  std::uint8_t MarkGuard(std::uint32_t mutex);
  std::uint64_t generation() const { return generation_; }

  // --- wait queues: a real program's futexes and condition variables ---
  // A queue is what a thread blocks on when the engine cannot see who will
  // let it go (a futex word, a condition variable). `blamed` is the actor
  // the waiters are believed to wait for (the holder of the lock the queue
  // stands for), for the wait-for graph; kNoActor when nobody is known.
  std::uint32_t NewWaitQueue(absl::string_view name);
  void set_wait_queue_blame(std::uint32_t queue, ActorId blamed) {
    wait_queues_[queue].blamed = blamed;
  }
  void set_wait_queue_name(std::uint32_t queue, absl::string_view name) {
    wait_queues_[queue].name.assign(name.data(), name.size());
  }
  absl::string_view WaitQueueName(std::uint32_t queue) const { return wait_queues_[queue].name; }
  // Blocks the current actor on `queue` until a WakeQueue picks it.
  void WaitOnQueue(std::uint32_t queue, const Footprint& next);
  // A timed wait: blocks the current actor on `queue` as WaitOnQueue does
  // until a WakeQueue picks it (true), or until no other actor can move:
  // simulated time passes only then, so that is when a deadline expires
  // (false: it timed out and left the queue). When several timed waits could
  // expire, the strategy picks which.
  bool WaitOnQueueOrTimeOut(std::uint32_t queue, const Footprint& next);
  // Blocks the current actor until no other actor can move - none is
  // runnable and no timed wait can expire - then takes the step `end`
  // (EndAtRestFootprint: the step that ends the process). An exit's end
  // waits so: every per-event verdict of a process cut short at an earlier
  // step is a verdict of this longest run too, since the cut run's events
  // are a prefix of it, so the search need not try every cut
  // (SimHost::ExitProcess says what the end's verdicts need besides).
  void AwaitRest(const Footprint& end);
  // Wakes up to `count` waiters, first come first woken; returns how many.
  std::uint32_t WakeQueue(std::uint32_t queue, std::uint32_t count);

  // --- shared state (core/shared.h), named for reports ---
  std::uint32_t NewShared(absl::string_view name);
  // The current actor runs exit handlers whose steps are program-wide.
  bool RunsProgramWideHandlers() const {
    return current_ == handlers_actor_ && handlers_program_wide_;
  }

  // --- events and time ---
  // Appends an event by the actor taking the current step: its kind and the
  // payload the kind carries (sim/event_payloads.h), if any.
  void Log(EventKind kind) { Append(Event(now_, acting_, kind, payload::None{})); }
  template <typename Payload>
  void Log(EventKind kind, const Payload& payload) {
    Append(Event(now_, acting_, kind, payload));
  }
  // Appends an event for another actor: a thread's start, logged by the step
  // that creates it.
  template <typename Payload>
  void LogAs(ActorId actor, EventKind kind, const Payload& payload) {
    Append(Event(now_, actor, kind, payload));
  }
  std::uint64_t now() const { return now_; }
  void AdvanceTo(std::uint64_t t) {
    if (t > now_) now_ = t;
  }
  // Stops the execution (the first violation wins).
  void ReportViolation(std::string property, std::string message, std::vector<WaitLink> waits = {},
                       bool cyclic = false);

  // --- results of the last execution ---
  const std::optional<Violation>& violation() const { return violation_; }
  const std::vector<Event>& trace() const { return trace_; }
  const std::vector<std::uint64_t>& choices() const { return choices_; }
  // Hands the last execution's buffers over by swapping (no copy); the
  // engine reuses whatever capacity it gets back.
  void SwapResults(std::vector<Event>* trace, std::vector<std::uint64_t>* choices) {
    trace_.swap(*trace);
    choices_.swap(*choices);
  }
  std::uint64_t digest() const { return digest_.value(); }
  std::uint64_t steps() const { return steps_; }
  bool process_exited() const { return process_exited_; }
  int exit_status() const { return exit_status_; }
  std::size_t stacks_mapped() const { return stacks_.stacks_mapped(); }

  // SimView
  bool sticky_error() const override { return gpu_ && gpu_->sticky_error(); }
  std::uint64_t device_charged_bytes(std::uint64_t bytes) const override {
    return gpu_ ? gpu_->ChargedBytes(bytes) : bytes;
  }
  std::uint64_t device_free_bytes() const override { return gpu_ ? gpu_->FreeBytes() : 0; }
  absl::string_view ActorName(ActorId actor) const override;
  absl::string_view MutexName(std::uint32_t mutex) const override;
  absl::string_view SharedName(std::uint32_t object) const override;
  absl::string_view MessageText(std::uint32_t key) const override;
  std::optional<bool> guards_order_accesses() const override { return guards_order_accesses_; }
  // A stable key for a printed message (a hash of its text, the same in
  // every process), remembered for MessageText.
  std::uint32_t InternMessage(absl::string_view text);

 private:
  // Inline: an execution logs dozens of events, and a call per event cost
  // more than the hashing. The event is hashed from a local the compiler
  // keeps in registers, then stored.
  void Append(const Event& e) {
    if (stopped_ || tearing_down_) return;
    digest_.Add(e);
    trace_.push_back(e);
    // What the data-race monitor's end-only check would find in the trace
    // (DataRaceMonitor::OrderedByGuards), kept as the events are logged.
    guards_order_accesses_ &= KeepsGuardOrder(e);
    if ((monitor_reads_ & KindBit(e.kind)) != 0) RunMonitors(e.kind);
  }

  struct Actor {
    ActorKind kind = ActorKind::kHostThread;
    ActorState state = ActorState::kRunnable;
    std::uint32_t index = 0;  // thread ordinal, stream index or callback number
    WaitReason wait;
    Footprint next;
    boost::context::fiber cont;  // where the fiber resumes, when suspended
    std::function<void()> body;
    const void* stack_bottom = nullptr;
    std::size_t stack_size = 0;
    bool started = false;                // the fiber has run (its body began)
    const void* entry_marker = nullptr;  // a local of FiberEntry's frame
    void* tsan_fiber = nullptr;          // ThreadSanitizer's handle (tsan builds only)
    std::uint8_t guards_held = 0;        // guard bits of the guard mutexes it owns
    bool woken = false;                  // a WakeQueue picked it (kWakeup waits)
    bool timed = false;                  // its kWakeup wait can time out (WaitOnQueueOrTimeOut)
    // The device's last answer for this actor (see DeviceAnswer), valid while
    // device_epoch_ == answer_epoch; 0 = never asked.
    std::uint64_t answer_epoch = 0;
    bool answer = false;
    Footprint answer_next;
  };
  struct WaitQueueState {
    std::string name;
    ActorId blamed = kNoActor;
    std::deque<ActorId> waiters;
  };
  struct MutexState {
    std::string name;
    ActorId owner = kNoActor;
    ActorId reader = kNoActor;   // inside ReadUnder (a pass) on the mutex
    std::uint8_t guard_bit = 0;  // 0: guards no shared state
  };
  // Recomputes the held guard bits of the mutex's previous and new owner.
  void GuardsChanged(ActorId before, ActorId after);
  std::uint8_t GuardsOf(ActorId actor) const;
  static constexpr ActorId kMainContext = kNoActor;

  Actor& NewActor(ActorKind kind);
  // "T3", "callback", "callback2", "gpu:s1": formatted when first asked for,
  // once per Scheduler, never per execution.
  absl::string_view NameFor(ActorKind kind, std::uint32_t index) const;
  // Picks the next fiber actor to run (executing GPU steps on the way), or
  // kMainContext when the execution is over.
  ActorId Choose();
  // Asks the strategy to pick one of the first `count` candidates; false (a
  // violation reported) if its answer is out of range.
  bool Ask(std::size_t count, int current_index, std::size_t* pick);
  void StepBoundReached();
  void InvalidPick(std::size_t pick, std::size_t count);
  bool Ready(ActorId id, Footprint* next);
  // Fills candidates_ with the actors that can move, in id order; returns how
  // many, and in *current_index the slot of last_chosen_ (-1 if absent).
  std::size_t CollectCandidates(int* current_index);
  // The same, looking only at the actors in watch_ (when all ids fit in it).
  std::size_t CollectWatched(int* current_index);
  // When nothing can move: the timed waits, whose expiry is the next step;
  // when there are none, the actor awaiting rest.
  std::size_t CollectExpiringWaits();
#ifdef STACKCHECK_ASAN
  void CheckWatched(std::size_t count, int current_index);
#endif
  // Ready for actors that only the device can answer for (GPU streams, device
  // waits, the idle callback thread): cached per actor until the device
  // changes, since most steps leave the device as it was.
  bool DeviceAnswer(Actor& a, Footprint* next);
  bool RefreshAnswer(Actor& a, Footprint* next);
  // Flags what the state decides about the candidates' steps, for the
  // search's happens-before: lock attempts that will find their mutex held
  // (kBlockedAttempt), waits for the stream on a healthy context
  // (kWaitsOnHealthyContext).
  void MarkStateFlags(std::size_t count);
  bool AskDevice(const Actor& a, Footprint* next);
  void OnStuck();
  void Reschedule(PointKind kind);
  // What the current actor's next step runs (Footprint::program): every
  // fiber runs program code; a real program's exit handlers' steps are
  // program-wide.
  std::uint8_t ProgramFlags() const {
    return RunsProgramWideHandlers() ? kRunsProgram | kProgramWide : kRunsProgram;
  }
  void SwitchTo(ActorId to);
  boost::context::fiber& ContinuationOf(ActorId actor) {
    return actor == kMainContext ? main_cont_ : actors_[actor].cont;
  }
  // Never inlined: a forced unwind stops at the first frame whose CFA lies
  // above FiberEntry's marker, which must be FiberEntry's own frame. Inlined
  // into boost's fiber_entry (link-time optimisation, or -fPIC code built
  // -fno-semantic-interposition and without frame pointers) the unwind was
  // seen to reach fiber_entry, which is noexcept: std::terminate.
  ABSL_ATTRIBUTE_NOINLINE void FiberEntry(ActorId id, boost::context::fiber&& caller);
  boost::context::fiber FiberExit(ActorId id);
  void Teardown();
  friend struct ForcedUnwindAccess;
  // At teardown: whether this scheduling point may start unwinding its fiber
  // (not while a destructor runs during an unwind).
  bool MayUnwindHere() const;
  // Unwinds the current fiber's stack down to FiberEntry, then leaves it for
  // good; never returns.
  [[noreturn]] void UnwindHere();
  [[noreturn]] void FinishUnwind();
  bool OwnsNothing(ActorId id) const;
  void Unwind(ActorId id);
  void Abandon(ActorId id);
  // Shows the event just logged to every monitor; the first violation stops
  // the execution.
  void RunMonitors(EventKind kind);
  // The same for a driver call: only the monitors whose CallFilter takes it.
  void RunCallMonitors(std::size_t first, std::size_t last);
  // Stops the execution at *verdict, unless the pass lets it go on; either way
  // *verdict is left destroyed. Returns whether the execution stops.
  ABSL_ATTRIBUTE_NOINLINE bool StopAtViolation(std::optional<Violation>* verdict);
  // Fills v.fingerprint; then whether the pass lets the execution go past v
  // (recorded in passed_).
  bool Passes(Violation& v);
  void QuiescenceMonitors(bool all_finished);
  // Wait-for graph (wait_for.cc).
  void WaitEdgesOf(ActorId actor, std::vector<WaitEdge>* out);
  // The deadlock's report, and its waits (the cycle, or every wait when none).
  std::string DescribeDeadlock(std::vector<WaitLink>* links, bool* cyclic);

  GpuModel* gpu_ = nullptr;
  Strategy* strategy_ = nullptr;
  std::vector<std::unique_ptr<Monitor>> monitors_;
  EventKindMask monitor_reads_ = 0;  // the kinds some monitor (or books_) reads
  // Kept for the monitors that read them (DeviceBooks::kReads, or 0: none does).
  DeviceBooks books_;
  EventKindMask books_reads_ = 0;
  // By event kind k, the monitors that read it, in order:
  // by_kind_[first_of_kind_[k] .. first_of_kind_[k + 1]).
  std::vector<Monitor*> by_kind_;
  std::uint32_t first_of_kind_[65] = {};
  // Beside by_kind_: each entry's CallFilter (read for the driver-call kinds).
  std::vector<CallFilter> call_filters_;
  // By driver-call kind (0: kDriverCall, 1: kDriverCallBlock), the calls some
  // filter that is not marked_only takes: a call outside it, not made from a
  // callback, reaches no monitor (most calls, most of the time).
  std::uint64_t unmarked_call_apis_[2] = {};
  // Storage for the verdict of the monitor RunMonitors is calling.
  alignas(std::optional<Violation>) unsigned char verdict_[sizeof(std::optional<Violation>)];
  std::uint64_t step_bound_ = 100000;
  StackPool stacks_;
  // Actor names by kind and ordinal; a deque never moves its strings.
  mutable std::deque<std::string> names_[4];

  // Per execution; vectors keep their capacity between executions.
  std::vector<Actor> actors_;  // slots reused; actor_count_ live ones
  std::size_t actor_count_ = 0;
  std::uint32_t host_threads_ = 0;
  std::uint32_t callback_workers_ = 0;
  std::vector<MutexState> mutexes_;
  std::vector<WaitQueueState> wait_queues_;
  std::uint32_t guards_ = 0;               // guard mutexes marked this execution
  std::vector<std::string> shared_names_;  // by SharedId; shared_count_ live
  std::size_t shared_count_ = 0;
  // Printed messages by key; kept across executions (a few distinct texts).
  absl::flat_hash_map<std::uint32_t, std::string> messages_;
  std::vector<Candidate> candidates_;
  std::vector<Event> trace_;
  std::vector<std::uint64_t> choices_;
  std::optional<Violation> violation_;
  std::function<bool(const Violation&)> pass_;
  std::vector<Violation> passed_;
  std::size_t passes_ = 0;  // violations passed in this execution
  EventDigest digest_;      // sim/trace/digest.h: the same hash as Digest(trace)
  bool observes_every_step_ = false;
  std::uint64_t device_epoch_ = 1;  // bumped by DeviceChanged; never reset
  WatchSet watch_;                  // the actors the next scan looks at (ids below 64)
  std::uint64_t steps_ = 0;
  std::uint64_t now_ = 0;
  std::uint64_t generation_ = 0;
  ActorId current_ = kMainContext;   // the fiber running (or main)
  ActorId switcher_ = kMainContext;  // who switched to current_
  ActorId acting_ = kNoActor;        // who takes the step being executed
  ActorId last_chosen_ = kNoActor;
  bool stopped_ = false;
  bool tearing_down_ = false;
  bool guards_order_accesses_ = true;  // see SimView::guards_order_accesses
  bool forced_unwinding_ = false;      // a fiber's stack is being unwound
  bool unwound_ = false;               // ...and it has reached FiberEntry
  bool process_exited_ = false;
  int exit_status_ = 0;
  ActorId exiting_actor_ = kNoActor;
  ActorId handlers_actor_ = kNoActor;   // running the exit handlers
  bool handlers_program_wide_ = false;  // ExitHandlersStart
  std::size_t handlers_from_ = 0;
  Stacks stacks_at_end_ = Stacks::kIntact;  // as the process ended
  struct Grave {
    void* object;
    void (*free)(void*);
  };
  std::vector<Grave> graveyard_;
  std::vector<std::function<void()>> kept_;  // KeepUntilTeardown

  boost::context::fiber main_cont_;
  void* main_tsan_fiber_ = nullptr;
  const void* main_stack_bottom_ = nullptr;
  std::size_t main_stack_size_ = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_SCHEDULER_H_
