// The host interface: the threads, mutexes and process exit an offload runtime
// uses, so the same runtime code runs on OS threads (real/) and on the
// simulator's fibers (sim/), where every operation here is a scheduling point.
#ifndef STACKCHECK_CORE_HOST_H_
#define STACKCHECK_CORE_HOST_H_

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace stackcheck {

// Identity of a host thread (or of the driver's callback thread). Never 0.
using ThreadId = std::uint32_t;
inline constexpr ThreadId kNoThread = 0;

// A non-recursive mutex that knows its owner, so that backends can report an
// unlock by a thread that does not own it, a relock by the owner, or a destroy
// while locked (the hazards of V1a and V3) instead of invoking undefined
// behaviour. Like a default pthread mutex, an unlock by a non-owner releases it.
class ABSL_LOCKABLE Mutex {
 public:
  virtual ~Mutex() = default;
  virtual void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() = 0;
  virtual void Unlock() ABSL_UNLOCK_FUNCTION() = 0;
  virtual bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) = 0;
  // The thread holding the mutex, or kNoThread.
  virtual ThreadId Owner() const = 0;
  // pthread_mutex_destroy as glibc implements it: on a held mutex it fails
  // (EBUSY: returns false) and the mutex stays locked, so its waiters keep
  // waiting; on a free one it succeeds, and later Lock/TryLock/Unlock calls
  // return at once without locking anything (glibc does not check).
  virtual bool Destroy() = 0;
  // Lock, `read`, Unlock: a section that only reads state this mutex guards
  // and calls nothing that could block or take a lock. The simulator runs it
  // as one step that waits for a holder like Lock; two such sections commute
  // (neither changes anything the other reads), so a search need not try
  // both of their orders.
  virtual void ReadUnder(absl::FunctionRef<void()> read) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    Lock();
    read();
    Unlock();
  }
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Identity of a piece of shared state declared through Host::DeclareShared.
using SharedId = std::uint32_t;
// What DeclareShared returns on a backend that does not check accesses.
inline constexpr SharedId kUntrackedShared = 0xffffffffu;

class Host {
 public:
  virtual ~Host() = default;

  virtual std::unique_ptr<Mutex> NewMutex(absl::string_view name) = 0;

  virtual ThreadId CurrentThread() = 0;
  // Starts `body` on a new host thread.
  virtual ThreadId Spawn(absl::string_view name, std::function<void()> body) = 0;
  virtual void Join(ThreadId thread) = 0;

  // Virtual time in the simulator, wall-clock time on real threads.
  virtual void SleepFor(absl::Duration d) = 0;
  virtual void Yield() = 0;

  // The process's exit path, as libgomp relies on it: handlers registered here
  // run (in reverse order) on the thread that calls Exit, then the process ends.
  // The simulator ends the simulated process, never the test binary.
  virtual void AtExit(std::function<void()> handler) = 0;
  [[noreturn]] virtual void Exit(int status) = 0;
  // Exit, called where the caller's frames own nothing any more (a main
  // that returned everything it held, as its return would): the simulator
  // then need not unwind the caller's stack to free it. The same process
  // exit everywhere else.
  [[noreturn]] virtual void ExitOwningNothing(int status) {
    Exit(status);
    std::abort();  // Exit never returns; GCC cannot see that through the virtual call
  }

  // The process dies of `signal` where the code the caller models would
  // fault (libgomp reading the device table its exit freed): no exit handler
  // runs. The simulator ends the simulated process and logs the signal; on
  // real threads the signal is raised, as the fault would.
  [[noreturn]] virtual void Crash(int signal) {
    std::fprintf(stderr, "stackcheck: the modelled runtime faults here (signal %d)\n", signal);
    std::fflush(nullptr);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    std::_Exit(128 + signal);
  }
  // Shared state (core/shared.h declares it through these two; nothing else
  // calls them). DeclareShared names state that threads share and meant to be
  // accessed only with `guard` held (nullptr: no mutex guards it); a backend
  // that checks data races returns its id, the others kUntrackedShared, and
  // then never hear of it again (real threads: a plain access). SharedAccess
  // is called by the accessing thread just before it reads or writes: the
  // simulator logs the access and, when `guard` is not held by the caller,
  // makes it a scheduling point. SharedSnapshot is an atomic read of it
  // (not a race): a point too when `guard` is not held, but never reported.
  virtual SharedId DeclareShared(absl::string_view /*name*/, const Mutex* /*guard*/) {
    return kUntrackedShared;
  }
  virtual void SharedAccess(SharedId /*object*/, bool /*write*/) {}
  virtual void SharedSnapshot(SharedId /*object*/) {}
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_HOST_H_
