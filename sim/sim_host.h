// core/host.h and core/observer.h on the simulator's fibers.
//
// Every Host and Mutex operation is a scheduling point. Mutexes know their
// owner: an unlock by another thread releases the mutex (like a default
// pthread mutex) and is logged with the owner it had, a relock by the owner
// blocks forever (reported as a deadlock), destroying a locked mutex is logged.
// Returning from the main thread is exit(0): the AtExit handlers run on it,
// then the process ends and no other actor moves again.
#ifndef STACKCHECK_SIM_SIM_HOST_H_
#define STACKCHECK_SIM_SIM_HOST_H_

#include <functional>
#include <memory>
#include <vector>

#include "core/host.h"
#include "core/observer.h"
#include "sim/probe_registry.h"
#include "sim/scheduler.h"

namespace stackcheck::sim {

class SimHost final : public Host, public RuntimeObserver {
 public:
  // Every known probe is registered first, in a fixed order, so that a
  // probe's id (and so a trace's digest) does not depend on which probes
  // earlier executions of the same Simulator reached.
  explicit SimHost(Scheduler* scheduler);

  // Whether an exit's process ends at rest (SimConfig::
  // exit_cuts_every_step, negated).
  void set_exit_ends_at_rest(bool at_rest) { exit_ends_at_rest_ = at_rest; }
  // Forgets the previous execution's exit handlers.
  void BeginExecution() {
    exit_handlers_.clear(), exiting_ = false, pending_exits_.clear(), guards_.clear();
  }
  // Destroys the handlers an execution registered and never ran.
  void ForgetExitHandlers() { exit_handlers_.clear(); }
  // Runs the exit path on the calling fiber; `stacks` says what teardown
  // may unwind (Scheduler::Stacks; kMainReturned: main has returned, which is
  // exit(0), and its locals are gone).
  [[noreturn]] void ExitProcess(int status, Scheduler::Stacks stacks = Scheduler::Stacks::kIntact);

  const ProbeRegistry& probes() const { return probes_; }
  ProbeRegistry& probes() { return probes_; }

  // ThreadId <-> actor: ThreadIds are actor ids + 1 (0 is kNoThread).
  static ThreadId ToThreadId(ActorId actor) { return actor == kNoActor ? kNoThread : actor + 1; }
  static ActorId ToActor(ThreadId thread) { return thread == kNoThread ? kNoActor : thread - 1; }

  // Host
  std::unique_ptr<Mutex> NewMutex(absl::string_view name) override;
  ThreadId CurrentThread() override;
  // Whether the acting actor is a stream callback's (the driver's callback
  // thread or a concurrent callback worker).
  bool InCallback() const;
  ThreadId Spawn(absl::string_view name, std::function<void()> body) override;
  void Join(ThreadId thread) override;
  void SleepFor(absl::Duration d) override;
  void Yield() override;
  void AtExit(std::function<void()> handler) override;
  [[noreturn]] void Exit(int status) override;
  [[noreturn]] void ExitOwningNothing(int status) override;
  [[noreturn]] void Crash(int signal) override;
  // An access without its guard held is a scheduling point of its own that
  // breaks the guard's bit (it conflicts with every step taken while holding
  // the guard, where the guarded accesses are), except on the actor running
  // the exit handlers, whose steps are program-wide already.
  SharedId DeclareShared(absl::string_view name, const Mutex* guard) override;
  void SharedAccess(SharedId object, bool write) override;
  void SharedSnapshot(SharedId object) override;

  // --- a real program's threads (sim/libcuda runs them through these) ---
  // Its futexes and condition variables: see Scheduler's wait queues. Every
  // call is a program-wide scheduling point: nothing is known of what the
  // real code between two calls touches.
  std::uint32_t NewWaitQueue(absl::string_view name);
  void BlameWaitQueue(std::uint32_t queue, ThreadId holder);
  void RenameWaitQueue(std::uint32_t queue, absl::string_view name);
  absl::string_view WaitQueueName(std::uint32_t queue) const;
  void WaitOnQueue(std::uint32_t queue);
  // A wait with a deadline: woken by a WakeQueue (true), or timed out when no
  // other actor can move (false): Scheduler::WaitOnQueueOrTimeOut.
  bool WaitOnQueueOrTimeOut(std::uint32_t queue);
  std::uint32_t WakeQueue(std::uint32_t queue, std::uint32_t count);
  // A scheduling point that logs one call of the program by name.
  void ProgramCall(absl::string_view name, std::uint32_t object = 0, std::uint64_t result = 0);
  // The program's exit() began on the calling thread: its own exit handlers
  // run now, as real code between this thread's points, which are
  // program-wide from here on; Exit ends the simulated process after them.
  void ProgramExitBegins();
  // The program's exit() was called on the calling thread while `first`'s
  // exit runs the exit handlers: reported as no-concurrent-exit, which ends
  // the execution. C11 (7.22.4.4) leaves a second exit undefined; glibc 2.36
  // (Debian 12's) runs the remaining handlers on both threads at once, and a
  // GPU run died of it (hardware/VALIDATION.md). An exit from a handler on
  // the exiting thread itself is not this: glibc goes on with the handlers.
  void ProgramExitAgain(ThreadId first);

  // RuntimeObserver
  void RegionBegin(RegionId region, std::uint64_t stacks_bytes) override;
  void RegionEnd(RegionId region) override;
  void FatalReported(RegionId attributed, CuResult code, absl::string_view message) override;
  void ErrorReported(CuResult code, absl::string_view message) override;
  void CacheHeld(std::uint64_t held_bytes) override;
  void AllocationFailed(std::uint64_t bytes, std::uint64_t cached_bytes) override;
  void Probe(absl::string_view probe) override;

 private:
  Scheduler* scheduler_;
  ProbeRegistry probes_;
  std::vector<std::function<void()>> exit_handlers_;
  struct GuardOf {
    std::uint32_t mutex = 0;  // the guard's mutex id, when bit != 0
    std::uint8_t bit = 0;     // its guard bit (Footprint::held); 0: no guard
  };
  std::vector<GuardOf> guards_;  // by SharedId, this execution's
  // Whether the calling actor holds the guard of `object`; when not (and no
  // program-wide handler runs), first makes the access a point of its own.
  bool AccessPoint(SharedId object, bool write);
  // The step exit() takes before the handlers run (see Exit).
  void ExitStep();
  // The step a message to the user is (FatalReported, ErrorReported).
  void MessagePoint(CuResult code);
  // Whether an exit's end waits until no other actor can move (see
  // ExitProcess), not only a real program's.
  bool EndsAtRest() const;
  bool exiting_ = false;
  bool exit_ends_at_rest_ = true;
  // Threads waiting at the first point of an exit() while none has run.
  std::vector<ActorId> pending_exits_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_SIM_HOST_H_
