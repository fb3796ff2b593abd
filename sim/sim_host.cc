#include "sim/sim_host.h"

#include <algorithm>
#include <new>
#include <typeinfo>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/probes.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {
namespace {

// Where a destroyed SimMutex hands its identity to its tombstone (see
// operator delete below).
struct Rebirth {
  void* memory = nullptr;
  Scheduler* scheduler = nullptr;
  std::uint32_t id = 0;
  std::uint64_t generation = 0;
};
thread_local Rebirth rebirth;

class SimMutex final : public Mutex {
 public:
  SimMutex(Scheduler* scheduler, std::uint32_t id, std::uint64_t generation, bool tombstone = false)
      : scheduler_(scheduler), id_(id), generation_(generation), tombstone_(tombstone) {}

  ~SimMutex() override {
    if (tombstone_ || destroyed_ || generation_ != scheduler_->generation()) return;
    if (!scheduler_->tearing_down()) {
      scheduler_->Log(EventKind::kMutexDestroy,
                      payload::MutexHeld{id_, scheduler_->mutex_owner(id_)});
    }
    rebirth = Rebirth{this, scheduler_, id_, generation_};
  }

  // Simulated code may use a mutex after destroying it (a callback unlocking
  // the lock the exit path destroyed: the V1a/B1 hazards). Rather than let
  // that crash the simulator, the memory stays valid until the execution is
  // over, holding a tombstone that behaves like the mutex and logs its uses.
  static void operator delete(void* memory) {
    if (memory != rebirth.memory) {
      ::operator delete(memory);
      return;
    }
    const Rebirth r = rebirth;
    rebirth = Rebirth{};
    auto* tombstone = new (memory) SimMutex(r.scheduler, r.id, r.generation, true);
    r.scheduler->Bury(tombstone, [](void* object) {
      static_cast<SimMutex*>(object)->~SimMutex();
      ::operator delete(object);
    });
  }

  void Lock() override {
    const Footprint step = Blocking(Touches(object(), true), kLockAttempt);
    scheduler_->Point(step);
    if (!Live()) return;
    if (destroyed_) {
      // glibc locks nothing; the monitor sees a use after destroy.
      scheduler_->Log(EventKind::kMutexLock, payload::Mutex{id_});
      return;
    }
    const ActorId self = scheduler_->current();
    if (!WaitUntilFree(step)) return;
    scheduler_->set_mutex_owner(id_, self);
    scheduler_->Log(EventKind::kMutexLock, payload::Mutex{id_});
  }

  void Unlock() override {
    // Reached from MutexLock's destructor: this point must never throw.
    const bool owned =
        Live() && !destroyed_ && scheduler_->mutex_owner(id_) == scheduler_->current();
    scheduler_->Point(Blocking(Touches(object(), true), owned ? kOwnerUnlock : 0),
                      PointKind::kNoThrow);
    if (!Live()) return;
    if (destroyed_) {
      scheduler_->Log(EventKind::kMutexUnlock, payload::MutexHeld{id_, kNoActor});
      return;
    }
    // Logged with the owner it had, so a monitor sees a non-owner unlock.
    scheduler_->Log(EventKind::kMutexUnlock, payload::MutexHeld{id_, scheduler_->mutex_owner(id_)});
    scheduler_->set_mutex_owner(id_, kNoActor);
  }

  void ReadUnder(absl::FunctionRef<void()> read) override {
    // One step that reads the mutex: ordered against every Lock and Unlock,
    // commuting with other passes. Like a lock attempt it waits while another
    // actor holds the mutex (a relock by the owner waits forever).
    const Footprint step = Blocking(Touches(object(), false), kLockAttempt);
    scheduler_->Point(step);
    if (!Live()) return;
    if (!destroyed_ && !WaitUntilFree(step)) return;
    scheduler_->Log(EventKind::kMutexPass, payload::Mutex{id_});
    const std::size_t logged = scheduler_->trace().size();
    scheduler_->set_mutex_reader(id_, scheduler_->current());
    read();
    scheduler_->set_mutex_reader(id_, kNoActor);
    // What it read was shared state: where the pass releases it (to the next
    // lock, for happens-before), after those reads.
    if (scheduler_->trace().size() != logged)
      scheduler_->Log(EventKind::kMutexPassEnd, payload::Mutex{id_});
  }

  bool TryLock() override {
    scheduler_->Point(Touches(object(), true));
    if (!Live()) return false;
    if (destroyed_) {
      scheduler_->Log(EventKind::kMutexLock, payload::Mutex{id_});
      return true;
    }
    if (scheduler_->mutex_owner(id_) != kNoActor) {
      scheduler_->Log(EventKind::kMutexTryLockFail, payload::Mutex{id_});
      return false;
    }
    scheduler_->set_mutex_owner(id_, scheduler_->current());
    scheduler_->Log(EventKind::kMutexLock, payload::Mutex{id_});
    return true;
  }

  std::uint32_t id() const { return id_; }
  bool Current() const { return generation_ == scheduler_->generation(); }

  ThreadId Owner() const override {
    if (generation_ != scheduler_->generation()) return kNoThread;
    return SimHost::ToThreadId(scheduler_->mutex_owner(id_));
  }

  bool Destroy() override {
    scheduler_->Point(Touches(object(), true));
    if (!Live()) return true;
    const ActorId owner = scheduler_->mutex_owner(id_);
    scheduler_->Log(EventKind::kMutexDestroy, payload::MutexHeld{id_, owner});
    if (owner != kNoActor) return false;  // EBUSY: stays locked
    destroyed_ = true;
    return true;
  }

 private:
  // Blocks while another actor holds the mutex (a relock by the owner waits
  // here forever: the deadlock report names it). False when the execution
  // ended meanwhile.
  bool WaitUntilFree(const Footprint& step) {
    while (scheduler_->mutex_owner(id_) != kNoActor) {
      scheduler_->Log(EventKind::kMutexBlock,
                      payload::MutexHeld{id_, scheduler_->mutex_owner(id_)});
      scheduler_->Block(WaitReason{WaitKind::kMutex, id_}, step);
      if (!Live()) return false;
    }
    return true;
  }

  // A mutex outliving its execution (or touched while fibers unwind) is inert.
  bool Live() const {
    return generation_ == scheduler_->generation() && !scheduler_->tearing_down();
  }
  std::uint32_t object() const { return ObjectId(ObjectKind::kMutex, id_); }

  Scheduler* const scheduler_;
  const std::uint32_t id_;
  const std::uint64_t generation_;
  const bool tombstone_;
  bool destroyed_ = false;  // Destroy() succeeded: uses lock nothing
};

}  // namespace

SimHost::SimHost(Scheduler* scheduler) : scheduler_(scheduler) {
  for (absl::string_view probe : kAllProbes) probes_.Intern(probe);
}

std::unique_ptr<Mutex> SimHost::NewMutex(absl::string_view name) {
  const std::uint32_t id = scheduler_->NewMutex(name);
  scheduler_->Log(EventKind::kMutexCreate, payload::Mutex{id});
  return std::make_unique<SimMutex>(scheduler_, id, scheduler_->generation());
}

ThreadId SimHost::CurrentThread() { return ToThreadId(scheduler_->current()); }

bool SimHost::InCallback() const { return scheduler_->CurrentIsCallback(); }

ThreadId SimHost::Spawn(absl::string_view name, std::function<void()> body) {
  (void)name;  // actors are named by ordinal (T1, T2...) for stable reports
  const auto child = static_cast<ActorId>(scheduler_->actor_count());
  scheduler_->Point(Touches(ObjectId(ObjectKind::kThread, child), true));
  const ActorId parent = scheduler_->current();
  const ActorId id = scheduler_->SpawnFiber(ActorKind::kHostThread, std::move(body));
  scheduler_->LogAs(id, EventKind::kThreadStart, payload::ThreadStart{parent});
  return ToThreadId(id);
}

void SimHost::Join(ThreadId thread) {
  const ActorId target = ToActor(thread);
  if (target >= scheduler_->actor_count() || scheduler_->kind(target) != ActorKind::kHostThread) {
    scheduler_->ReportViolation("host-misuse",
                                absl::StrCat(scheduler_->ActorName(scheduler_->current()),
                                             " joins unknown thread ", thread));
    scheduler_->Point(GlobalFootprint());
    return;
  }
  // Join commutes with everything but the target's last step, which enables
  // it and so always comes first; that step cannot be declared in advance (no
  // step knows it is the last), so kThreadEnd is read here and never written.
  const Footprint step = Touches(ObjectId(ObjectKind::kThreadEnd, target), false);
  scheduler_->Point(step);
  while (scheduler_->state(target) != ActorState::kFinished) {
    scheduler_->Block(WaitReason{WaitKind::kJoin, target}, step);
  }
  scheduler_->Log(EventKind::kJoin, payload::Join{target});
}

void SimHost::SleepFor(absl::Duration d) {
  const auto ns =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, absl::ToInt64Nanoseconds(d)));
  const Footprint step = Touches(ObjectId(ObjectKind::kThread, scheduler_->current()), true);
  scheduler_->Point(step);
  scheduler_->Log(EventKind::kSleep, payload::Sleep{ns});
  const std::uint64_t wake = scheduler_->now() + ns;
  // Others may move while this thread sleeps; waking is a step of its own.
  scheduler_->Point(step);
  scheduler_->AdvanceTo(wake);
}

void SimHost::Yield() {
  scheduler_->Point(Touches(ObjectId(ObjectKind::kThread, scheduler_->current()), true));
}

void SimHost::AtExit(std::function<void()> handler) {
  exit_handlers_.push_back(std::move(handler));
}

void SimHost::Exit(int status) {
  ExitStep();
  ExitProcess(status);
}

void SimHost::ExitOwningNothing(int status) {
  // The same steps; only teardown differs: it leaves this stack as it is
  // (an unwind costs about a thousand instructions per frame, at every execution's end).
  ExitStep();
  ExitProcess(status, Scheduler::Stacks::kCallerOwnsNothing);
}

void SimHost::Crash(int signal) {
  // The fault is in the step the caller is taking (the read that met the
  // freed table): the process ends in it, at once, every other actor cut
  // short and no handler run. DfsStrategy counts an execution's last step as
  // global, so a search still orders it against everything.
  scheduler_->Log(EventKind::kProcessKilled, payload::Killed{signal});
  scheduler_->EndProcess(128 + signal);
}

void SimHost::ExitStep() {
  // An exit's step starts the handlers not yet started, running their code
  // up to their first point (the runtime's handler takes the device lock
  // before it touches anything): only another exit cares, and the two steps
  // touch the process object, so a search orders them either way. The
  // process's end waits until no other actor can move (ExitProcess), and
  // counts as racing with nothing.
  //
  // A real program's exit (ProgramExitBegins) ends the process at once after
  // its handlers, cutting short whatever the other threads were doing; an
  // exit() that finds it running ends the process at once too: a global
  // step. When another thread's exit runs first, it turns this pending step
  // into one that ends the process, and redeclares it so (ExitProcess). Its
  // step that ends the process counts as global in DfsStrategy, which treats
  // every execution's last step so.
  if (exiting_ && !EndsAtRest()) {
    scheduler_->Point(GlobalFootprint());
  } else {
    const ActorId self = scheduler_->current();
    pending_exits_.push_back(self);
    scheduler_->Point(Touches(ObjectId(ObjectKind::kProcess, 0), true));
    pending_exits_.erase(std::find(pending_exits_.begin(), pending_exits_.end(), self));
  }
}

void SimHost::ExitProcess(int status, Scheduler::Stacks stacks) {
  if (!exiting_) {
    exiting_ = true;
    if (!EndsAtRest()) {
      for (ActorId other : pending_exits_) scheduler_->Redeclare(other, GlobalFootprint());
    }
    // The runtime model's handlers declare what they touch (see
    // Scheduler::ExitHandlersStart). On a return from main, the code up to
    // their first point runs in main's last step, declared before main knew:
    // the runtime's handler takes its lock before it touches anything.
    if (!exit_handlers_.empty()) scheduler_->ExitHandlersStart(/*program_wide=*/false);
  }
  // glibc: exit() called again (from a handler, or by another thread) goes on
  // with the handlers not yet started, then ends the process with its own
  // status; a handler already running is not resumed.
  while (!exit_handlers_.empty()) {
    std::function<void()> handler = std::move(exit_handlers_.back());
    exit_handlers_.pop_back();
    handler();
    // What a handler holds (RunScenario's keeps the runtime, a global in
    // libgomp, alive past main's locals) goes with the process, not before
    // the process is over. A handler that exits again never gets here: its
    // stack keeps it, and that exit unwinds the stack.
    scheduler_->KeepUntilTeardown(std::move(handler));
  }
  if (EndsAtRest() && stacks != Scheduler::Stacks::kMainReturned) {
    // From here the process may end at any step: the other threads (and the
    // handlers of another exit, which glibc's _exit cuts short too) run on
    // until it does. Searching every cut would multiply a search by the
    // other actors' remaining steps, and every per-event verdict of a cut is
    // one of the longest run, whose events extend the cut's: so the end
    // waits until no other actor can move. The one verdict a later end can
    // only improve - an abort no message has reported yet - is judged here
    // instead, at a step that races with every message and with the trap,
    // so that a search puts it before and after each of them. After main
    // returned, other threads may refer to its locals: the process ends now.
    scheduler_->Point(Touches(ObjectId(ObjectKind::kMessages, 0), false,
                              ObjectId(ObjectKind::kContext, 0), false));
    scheduler_->Log(EventKind::kExitHandlersDone, payload::ExitStatus{status});
    scheduler_->AwaitRest(EndAtRestFootprint());
  }
  scheduler_->EndProcess(status, stacks);
}

void SimHost::MessagePoint(CuResult code) {
  // The order of two threads' messages is what the user sees, and what
  // abort-attribution judges: each message that carries a sticky error's
  // code is a step of its own, and all of them write one object, so that a
  // search tries them in either order. A message with another code (out of
  // memory, a copy's CUDA_ERROR_UNKNOWN) is never the report of an abort,
  // nor its first one, so its order among the others decides nothing.
  if (IsStickyError(code)) scheduler_->Point(Touches(ObjectId(ObjectKind::kMessages, 0), true));
}

bool SimHost::EndsAtRest() const {
  // A real program's handlers (ProgramExitBegins) run real code that leaves
  // its state torn down: its threads would touch destroyed objects.
  return exit_ends_at_rest_ && !scheduler_->handlers_program_wide();
}

SharedId SimHost::DeclareShared(absl::string_view name, const Mutex* guard) {
  const SharedId id = scheduler_->NewShared(name);
  if (guards_.size() <= id) guards_.resize(id + 1);
  GuardOf& g = guards_[id];
  g = GuardOf{};
  // Only this execution's simulated mutexes can guard: anything else (a
  // mutex of another host) leaves the state unguarded, every access a point.
  // typeid, not dynamic_cast: SimMutex is final, and a dynamic_cast per
  // declaration was a measurable part of setting an execution up.
  const auto* mutex = guard != nullptr && typeid(*guard) == typeid(SimMutex)
                          ? static_cast<const SimMutex*>(guard)
                          : nullptr;
  if (mutex != nullptr && mutex->Current()) {
    g.mutex = mutex->id();
    g.bit = scheduler_->MarkGuard(mutex->id());
  }
  return id;
}

void SimHost::SharedAccess(SharedId object, bool write) {
  const ActorId self = scheduler_->current();
  if (self == kNoActor || object >= guards_.size()) return;  // outside an execution
  const bool guarded = AccessPoint(object, write);
  // A write in a pass (held for reading only) is not ordered by the guard.
  const bool in_pass = guarded && write && scheduler_->mutex_owner(guards_[object].mutex) != self;
  scheduler_->Log(EventKind::kSharedAccess,
                  payload::SharedAccess{object, write,
                                        in_pass   ? SharedGuard::kWriteInPass
                                        : guarded ? SharedGuard::kHeld
                                                  : SharedGuard::kUnguarded});
}

void SimHost::SharedSnapshot(SharedId object) {
  const ActorId self = scheduler_->current();
  if (self == kNoActor || object >= guards_.size()) return;  // outside an execution
  // Under the guard it is a plain read the mutex orders: nothing to log.
  if (!AccessPoint(object, /*write=*/false)) {
    scheduler_->Log(EventKind::kSharedAccess,
                    payload::SharedAccess{object, false, SharedGuard::kSnapshot});
  }
}

bool SimHost::AccessPoint(SharedId object, bool write) {
  const ActorId self = scheduler_->current();
  const GuardOf& g = guards_[object];
  const bool guarded = g.bit != 0 && (scheduler_->mutex_owner(g.mutex) == self ||
                                      scheduler_->mutex_reader(g.mutex) == self);
  if (!guarded && !scheduler_->RunsProgramWideHandlers()) {
    // Before the access: it conflicts with the guard's lock and unlock steps
    // (a lock step runs code under the guard after it acquires) and, through
    // the guard bit, with every step its owner takes while holding it.
    const std::uint32_t shared = ObjectId(ObjectKind::kShared, object);
    scheduler_->Point(
        g.bit == 0 ? Touches(shared, write)
                   : Breaking(Touches(shared, write, ObjectId(ObjectKind::kMutex, g.mutex), false),
                              g.bit));
  }
  return guarded;
}

std::uint32_t SimHost::NewWaitQueue(absl::string_view name) {
  return scheduler_->NewWaitQueue(name);
}

void SimHost::BlameWaitQueue(std::uint32_t queue, ThreadId holder) {
  scheduler_->set_wait_queue_blame(queue, ToActor(holder));
}

void SimHost::RenameWaitQueue(std::uint32_t queue, absl::string_view name) {
  scheduler_->set_wait_queue_name(queue, name);
}

absl::string_view SimHost::WaitQueueName(std::uint32_t queue) const {
  return scheduler_->WaitQueueName(queue);
}

void SimHost::WaitOnQueue(std::uint32_t queue) {
  scheduler_->WaitOnQueue(queue, GlobalFootprint());
}

bool SimHost::WaitOnQueueOrTimeOut(std::uint32_t queue) {
  return scheduler_->WaitOnQueueOrTimeOut(queue, GlobalFootprint());
}

std::uint32_t SimHost::WakeQueue(std::uint32_t queue, std::uint32_t count) {
  return scheduler_->WakeQueue(queue, count);
}

void SimHost::ProgramCall(absl::string_view name, std::uint32_t object, std::uint64_t result) {
  scheduler_->Point(GlobalFootprint());
  scheduler_->Log(EventKind::kProgramCall,
                  payload::ProgramCall{scheduler_->InternMessage(name), object,
                                       static_cast<std::int64_t>(result)});
}

void SimHost::ProgramExitBegins() {
  if (exiting_) return;
  exiting_ = true;
  scheduler_->ExitHandlersStart(/*program_wide=*/true);
}

void SimHost::ProgramExitAgain(ThreadId first) {
  scheduler_->ReportViolation(
      "no-concurrent-exit",
      absl::StrCat(scheduler_->ActorName(scheduler_->current()), " calls exit() while ",
                   scheduler_->ActorName(ToActor(first)),
                   "'s exit runs the exit handlers: both threads run them at once"));
  scheduler_->Point(GlobalFootprint());
}

void SimHost::RegionBegin(RegionId region, std::uint64_t stacks_bytes) {
  scheduler_->Log(EventKind::kRegionBegin, payload::Region{region, stacks_bytes});
}

void SimHost::RegionEnd(RegionId region) {
  scheduler_->Log(EventKind::kRegionEnd, payload::Region{region});
}

void SimHost::FatalReported(RegionId attributed, CuResult code, absl::string_view message) {
  MessagePoint(code);
  scheduler_->Log(EventKind::kFatalReported,
                  payload::Reported{attributed, code, scheduler_->InternMessage(message)});
}

void SimHost::ErrorReported(CuResult code, absl::string_view message) {
  MessagePoint(code);
  scheduler_->Log(EventKind::kErrorReported,
                  payload::Reported{0, code, scheduler_->InternMessage(message)});
}

void SimHost::CacheHeld(std::uint64_t held_bytes) {
  scheduler_->Log(EventKind::kCacheHeld, payload::CacheHeld{held_bytes});
}

void SimHost::AllocationFailed(std::uint64_t bytes, std::uint64_t cached_bytes) {
  scheduler_->Log(EventKind::kAllocGaveUp, payload::AllocGaveUp{bytes, cached_bytes});
}

void SimHost::Probe(absl::string_view probe) {
  scheduler_->Log(EventKind::kProbe, payload::Probe{probes_.Intern(probe)});
}

}  // namespace stackcheck::sim
