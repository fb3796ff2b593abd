// The program's thread calls, as scheduling points of its threads' twins
// (program_threads.h): pthread threads, mutexes (glibc's semantics, which
// the simulator's mutexes have: an unlock by a non-owner releases, a destroy
// of a held mutex fails with EBUSY and leaves it held; recursive and
// error-checking mutexes as their type says), condition variables,
// pthread_once, yields, sleeps (virtual time) and exit (in a kernel's code, a
// trap). C11's threads.h calls (thrd_*, mtx_*, cnd_*, call_once) are the
// same: glibc builds them on the pthread objects, but calls its internal
// pthread functions, which no interposition of the pthread_* names sees, so
// each is interposed here too.
//
// Which calls are the program's, to be modelled: interposed_call.h. A mutex's
// model (kinds, owners, the plugin's lock names): program_mutexes.h.
// Read-write and spin locks: interpose_shared_locks.cc; fork and signal
// masks: interpose_process.cc.
#include <pthread.h>
#include <sched.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <map>

#include "absl/time/time.h"
#include "core/host.h"
#include "sim/program/entry_point.h"
#include "sim/program/interposed_call.h"
#include "sim/program/kernel_body.h"
#include "sim/program/program_mutexes.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

bool Modelled(const void* caller) { return IsProgramCall(caller); }
bool ModelledSync(const void* caller) { return IsProgramSyncCall(caller); }

#define CALLER STACKCHECK_CALLER

std::uint32_t QueueOf(Twin& twin, const void* object, const char* kind) {
  return WaitQueueOf(twin, object, kind);
}

struct OnceState {
  int state = 0;  // 0 not run, 1 running, 2 done
  ThreadId runner = kNoThread;
};

std::map<const pthread_once_t*, OnceState>& Onces() {
  static auto* onces = new std::map<const pthread_once_t*, OnceState>;
  return *onces;
}

struct BarrierState {
  unsigned count = 0;    // threads per round
  unsigned arrived = 0;  // in this round
};

std::map<const pthread_barrier_t*, BarrierState>& Barriers() {
  static auto* barriers = new std::map<const pthread_barrier_t*, BarrierState>;
  return *barriers;
}

void Sleep(absl::Duration d, const char* name) {
  AtPoint([&](Twin& twin) {
    twin.host.ProgramCall(name);
    twin.host.SleepFor(d);
  });
}

struct Boot {
  NewThread* thread;
  void* (*start)(void*);
  void* argument;
};

void* Trampoline(void* p) {
  const Boot boot = *static_cast<Boot*>(p);
  delete static_cast<Boot*>(p);
  ThreadBegins(boot.thread);
  void* result = boot.start(boot.argument);
  ThreadEnds();
  return result;
}

// A timed wait is woken by a signal or a broadcast that reaches it (0), or
// times out (ETIMEDOUT) when no other thread can move: the simulator's time
// passes only then (SimHost::WaitOnQueueOrTimeOut). The deadline's value is
// not compared with anything: a deadline the program's other threads could
// outrun in real time is treated as one they always outrun.
int TimedWait(pthread_cond_t* c, pthread_mutex_t* m, const char* name) {
  bool woken = false;
  AtPoint([&](Twin& twin) {
    const std::uint32_t queue = QueueOf(twin, c, "condition variable");
    twin.host.ProgramCall(name, queue);
    Mutex& mutex = ProgramMutexOf(twin, m);
    mutex.Unlock();
    woken = twin.host.WaitOnQueueOrTimeOut(queue);
    mutex.Lock();
  });
  return woken ? 0 : ETIMEDOUT;
}

// The entry points' work, for the pthread calls and the C11 ones alike
// (threads.h: glibc builds them on the same objects), with the caller's
// return address deciding whether the call is the program's. Always inlined
// into their entry points, so that each call runs in one frame as before
// they were shared: out of line, exec on abort_while_mapping reported a
// false relock of the plugin's mutexes and lost their names. Why an extra
// frame matters is not yet understood; exec_test pins the behaviour.
#define STACKCHECK_ENTRY_WORK inline __attribute__((always_inline))

STACKCHECK_ENTRY_WORK int CreateThread(const void* caller, pthread_t* handle,
                                       const pthread_attr_t* attr, void* (*start)(void*),
                                       void* argument) {
  if (!Modelled(caller)) return Real().pthread_create(handle, attr, start, argument);
  NewThread* thread = PrepareThread();
  // The twin starts last: no scheduling point may come between it and the
  // real pthread_create below, or the twin could be picked before its
  // thread exists.
  AtPoint([&](Twin& twin) {
    twin.host.ProgramCall("pthread_create");
    SpawnTwin(twin, thread);
  });
  auto* boot = new Boot{thread, start, argument};
  const int rc = Real().pthread_create(handle, attr, &Trampoline, boot);
  if (rc != 0) {
    delete boot;
    ThreadCreateFailed(thread);
  } else {
    ThreadCreated(thread, *handle);
  }
  return rc;
}

STACKCHECK_ENTRY_WORK int JoinThread(const void* caller, pthread_t handle, void** result) {
  const ThreadId twin = TwinOf(handle);
  if (Modelled(caller) && twin != kNoThread) {
    AtPoint([&](Twin& t) {
      t.host.ProgramCall("pthread_join", twin);
      t.host.Join(twin);
    });
  }
  return Real().pthread_join(handle, result);
}

[[noreturn]] STACKCHECK_ENTRY_WORK void ExitThread(const void* caller, void* result) {
  if (Modelled(caller)) ThreadEnds();
  Real().pthread_exit(result);
}

STACKCHECK_ENTRY_WORK int InitMutex(const void* caller, pthread_mutex_t* m,
                                    const pthread_mutexattr_t* attr) {
  if (!ModelledSync(caller)) return Real().pthread_mutex_init(m, attr);
  Real().pthread_mutex_init(m, attr);  // the bytes, for whoever reads them
  AtPoint([&](Twin& twin) { NameProgramMutex(twin, m, caller); });
  return 0;
}

STACKCHECK_ENTRY_WORK int LockMutex(const void* caller, pthread_mutex_t* m, bool try_only) {
  if (!ModelledSync(caller)) {
    return try_only ? Real().pthread_mutex_trylock(m) : Real().pthread_mutex_lock(m);
  }
  int rc = 0;
  if (!AtPoint([&](Twin& twin) { rc = LockProgramMutex(twin, m, try_only); })) {
    return try_only ? Real().pthread_mutex_trylock(m) : Real().pthread_mutex_lock(m);
  }
  return rc;
}

STACKCHECK_ENTRY_WORK int UnlockMutex(const void* caller, pthread_mutex_t* m) {
  if (!ModelledSync(caller)) return Real().pthread_mutex_unlock(m);
  int rc = 0;
  if (!AtPoint([&](Twin& twin) { rc = UnlockProgramMutex(twin, m); })) {
    return Real().pthread_mutex_unlock(m);
  }
  return rc;
}

STACKCHECK_ENTRY_WORK int DestroyMutex(const void* caller, pthread_mutex_t* m) {
  if (!ModelledSync(caller)) return Real().pthread_mutex_destroy(m);
  int rc = 0;
  if (!AtPoint([&](Twin& twin) { rc = ProgramMutexOf(twin, m).Destroy() ? 0 : EBUSY; })) {
    return Real().pthread_mutex_destroy(m);
  }
  return rc;
}

STACKCHECK_ENTRY_WORK int CondWait(const void* caller, pthread_cond_t* c, pthread_mutex_t* m) {
  if (!ModelledSync(caller)) return Real().pthread_cond_wait(c, m);
  AtPoint([&](Twin& twin) {
    const std::uint32_t queue = QueueOf(twin, c, "condition variable");
    twin.host.ProgramCall("pthread_cond_wait", queue);
    Mutex& mutex = ProgramMutexOf(twin, m);
    mutex.Unlock();
    twin.host.WaitOnQueue(queue);
    mutex.Lock();
  });
  return 0;
}

STACKCHECK_ENTRY_WORK int CondWake(const void* caller, pthread_cond_t* c, std::uint32_t count,
                                   const char* name) {
  if (!ModelledSync(caller)) {
    return count == 1 ? Real().pthread_cond_signal(c) : Real().pthread_cond_broadcast(c);
  }
  AtPoint([&](Twin& twin) {
    const std::uint32_t queue = QueueOf(twin, c, "condition variable");
    twin.host.ProgramCall(name, queue, twin.host.WakeQueue(queue, count));
  });
  return 0;
}

// glibc marks a finished pthread_once_t with 2 (__PTHREAD_ONCE_DONE); one
// finished before control began is left to it.
STACKCHECK_ENTRY_WORK int RunOnce(const void* caller, pthread_once_t* once, void (*init)()) {
  if (!Modelled(caller) || *once == 2) return Real().pthread_once(once, init);
  bool run = false;
  AtPoint([&](Twin& twin) {
    OnceState& s = Onces()[once];
    const std::uint32_t queue = QueueOf(twin, once, "pthread_once");
    twin.host.ProgramCall("pthread_once", queue);
    while (s.state == 1) {
      twin.host.BlameWaitQueue(queue, s.runner);
      twin.host.WaitOnQueue(queue);
    }
    if (s.state == 0) {
      s.state = 1;
      s.runner = twin.host.CurrentThread();
      run = true;
    }
  });
  if (!run) return 0;
  init();
  *once = 2;
  AtPoint([&](Twin& twin) {
    Onces()[once].state = 2;
    twin.host.WakeQueue(QueueOf(twin, once, "pthread_once"), UINT32_MAX);
  });
  return 0;
}

}  // namespace
}  // namespace stackcheck::program

using namespace stackcheck::program;  // NOLINT: the C entry points below
using stackcheck::kNoThread;
using stackcheck::Mutex;
using stackcheck::ThreadId;

extern "C" {

STACKCHECK_ENTRY_POINT int pthread_create(pthread_t* handle, const pthread_attr_t* attr,
                                          void* (*start)(void*), void* argument) {
  return CreateThread(CALLER, handle, attr, start, argument);
}

STACKCHECK_ENTRY_POINT int pthread_join(pthread_t handle, void** result) {
  return JoinThread(CALLER, handle, result);
}

[[noreturn]] STACKCHECK_ENTRY_POINT void pthread_exit(void* result) { ExitThread(CALLER, result); }

STACKCHECK_ENTRY_POINT int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* attr) {
  return InitMutex(CALLER, m, attr);
}

STACKCHECK_ENTRY_POINT int pthread_mutex_lock(pthread_mutex_t* m) {
  return LockMutex(CALLER, m, /*try_only=*/false);
}

STACKCHECK_ENTRY_POINT int pthread_mutex_trylock(pthread_mutex_t* m) {
  return LockMutex(CALLER, m, /*try_only=*/true);
}

STACKCHECK_ENTRY_POINT int pthread_mutex_timedlock(pthread_mutex_t* m, const timespec* deadline) {
  if (!ModelledSync(CALLER)) return Real().pthread_mutex_timedlock(m, deadline);
  int rc = 0;
  if (!AtPoint(
          [&](Twin& twin) { rc = TimedLockProgramMutex(twin, m, "pthread_mutex_timedlock"); })) {
    return Real().pthread_mutex_timedlock(m, deadline);
  }
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                                   const timespec* deadline) {
  if (!ModelledSync(CALLER)) return Real().pthread_mutex_clocklock(m, clock, deadline);
  int rc = 0;
  if (!AtPoint(
          [&](Twin& twin) { rc = TimedLockProgramMutex(twin, m, "pthread_mutex_clocklock"); })) {
    return Real().pthread_mutex_clocklock(m, clock, deadline);
  }
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_mutex_unlock(pthread_mutex_t* m) {
  return UnlockMutex(CALLER, m);
}

STACKCHECK_ENTRY_POINT int pthread_mutex_destroy(pthread_mutex_t* m) {
  return DestroyMutex(CALLER, m);
}

STACKCHECK_ENTRY_POINT int pthread_cond_init(pthread_cond_t* c, const pthread_condattr_t* attr) {
  return Real().pthread_cond_init(c, attr);
}

int pthread_cond_destroy(pthread_cond_t* c) { return Real().pthread_cond_destroy(c); }

STACKCHECK_ENTRY_POINT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  return CondWait(CALLER, c, m);
}

STACKCHECK_ENTRY_POINT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                                  const timespec* deadline) {
  if (!ModelledSync(CALLER)) return Real().pthread_cond_timedwait(c, m, deadline);
  return TimedWait(c, m, "pthread_cond_timedwait");
}

STACKCHECK_ENTRY_POINT int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m,
                                                  clockid_t clock, const timespec* deadline) {
  if (!ModelledSync(CALLER)) return Real().pthread_cond_clockwait(c, m, clock, deadline);
  return TimedWait(c, m, "pthread_cond_clockwait");
}

STACKCHECK_ENTRY_POINT int pthread_cond_signal(pthread_cond_t* c) {
  return CondWake(CALLER, c, 1, "pthread_cond_signal");
}

STACKCHECK_ENTRY_POINT int pthread_cond_broadcast(pthread_cond_t* c) {
  return CondWake(CALLER, c, UINT32_MAX, "pthread_cond_broadcast");
}

STACKCHECK_ENTRY_POINT int pthread_once(pthread_once_t* once, void (*init)()) {
  return RunOnce(CALLER, once, init);
}

STACKCHECK_ENTRY_POINT int pthread_barrier_init(pthread_barrier_t* b,
                                                const pthread_barrierattr_t* attr, unsigned count) {
  if (!Modelled(CALLER)) return Real().pthread_barrier_init(b, attr, count);
  if (count == 0) return EINVAL;
  Barriers()[b] = BarrierState{count, 0};
  return 0;
}

STACKCHECK_ENTRY_POINT int pthread_barrier_destroy(pthread_barrier_t* b) {
  if (!Modelled(CALLER) || Barriers().count(b) == 0) return Real().pthread_barrier_destroy(b);
  Barriers().erase(b);
  return 0;
}

// The last thread of a round wakes the others and gets
// PTHREAD_BARRIER_SERIAL_THREAD, as in glibc.
STACKCHECK_ENTRY_POINT int pthread_barrier_wait(pthread_barrier_t* b) {
  if (!Modelled(CALLER) || Barriers().count(b) == 0) return Real().pthread_barrier_wait(b);
  int rc = 0;
  AtPoint([&](Twin& twin) {
    BarrierState& s = Barriers()[b];
    const std::uint32_t queue = QueueOf(twin, b, "pthread barrier");
    twin.host.ProgramCall("pthread_barrier_wait", queue);
    if (++s.arrived < s.count) {
      twin.host.WaitOnQueue(queue);
      return;
    }
    s.arrived = 0;
    twin.host.WakeQueue(queue, UINT32_MAX);
    rc = PTHREAD_BARRIER_SERIAL_THREAD;
  });
  return rc;
}

STACKCHECK_ENTRY_POINT int sched_yield() {
  if (!Modelled(CALLER)) return Real().sched_yield();
  AtPoint([](Twin& twin) {
    twin.host.ProgramCall("sched_yield");
    YieldToOthers(twin);
  });
  return 0;
}

STACKCHECK_ENTRY_POINT int nanosleep(const timespec* request, timespec* remaining) {
  if (!Modelled(CALLER) || request == nullptr) return Real().nanosleep(request, remaining);
  Sleep(absl::DurationFromTimespec(*request), "nanosleep");
  if (remaining != nullptr) *remaining = timespec{};
  return 0;
}

STACKCHECK_ENTRY_POINT int clock_nanosleep(clockid_t clock, int flags, const timespec* request,
                                           timespec* remaining) {
  if (!Modelled(CALLER) || request == nullptr || flags != 0) {
    return Real().clock_nanosleep(clock, flags, request, remaining);
  }
  Sleep(absl::DurationFromTimespec(*request), "clock_nanosleep");
  return 0;
}

STACKCHECK_ENTRY_POINT int usleep(useconds_t us) {
  if (!Modelled(CALLER)) return Real().usleep(us);
  Sleep(absl::Microseconds(us), "usleep");
  return 0;
}

STACKCHECK_ENTRY_POINT unsigned sleep(unsigned s) {
  if (!Modelled(CALLER)) return Real().sleep(s);
  Sleep(absl::Seconds(s), "sleep");
  return 0;
}

// --- C11 threads (threads.h) -------------------------------------------------
// glibc's mtx_t and cnd_t hold a pthread_mutex_t and a pthread_cond_t, and
// thrd_t is a pthread_t; its results: thrd_success 0, thrd_busy, thrd_error.

namespace {

struct C11Boot {
  thrd_start_t start;
  void* argument;
};

void* C11Trampoline(void* p) {
  const C11Boot boot = *static_cast<C11Boot*>(p);
  delete static_cast<C11Boot*>(p);
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(boot.start(boot.argument)));
}

int C11Result(int rc) {
  if (rc == 0) return thrd_success;
  if (rc == EBUSY) return thrd_busy;
  if (rc == ENOMEM || rc == EAGAIN) return thrd_nomem;
  return thrd_error;
}

pthread_mutex_t* MutexOfC11(mtx_t* m) { return reinterpret_cast<pthread_mutex_t*>(m); }
pthread_cond_t* CondOfC11(cnd_t* c) { return reinterpret_cast<pthread_cond_t*>(c); }

}  // namespace

STACKCHECK_ENTRY_POINT int thrd_create(thrd_t* handle, thrd_start_t start, void* argument) {
  auto* boot = new C11Boot{start, argument};
  pthread_t thread;
  const int rc = CreateThread(CALLER, &thread, nullptr, &C11Trampoline, boot);
  if (rc != 0) {
    delete boot;
    return C11Result(rc);
  }
  *handle = thread;
  return thrd_success;
}

STACKCHECK_ENTRY_POINT int thrd_join(thrd_t handle, int* result) {
  void* value = nullptr;
  const int rc = JoinThread(CALLER, handle, &value);
  if (rc == 0 && result != nullptr) {
    *result = static_cast<int>(reinterpret_cast<std::intptr_t>(value));
  }
  return C11Result(rc);
}

[[noreturn]] STACKCHECK_ENTRY_POINT void thrd_exit(int result) {
  ExitThread(CALLER, reinterpret_cast<void*>(static_cast<std::intptr_t>(result)));
}

STACKCHECK_ENTRY_POINT void thrd_yield() {
  if (!Modelled(CALLER)) return static_cast<void>(Real().sched_yield());
  AtPoint([](Twin& twin) {
    twin.host.ProgramCall("thrd_yield");
    YieldToOthers(twin);
  });
}

STACKCHECK_ENTRY_POINT int thrd_sleep(const timespec* duration, timespec* remaining) {
  if (!Modelled(CALLER) || duration == nullptr) {
    return Real().nanosleep(duration, remaining) == 0 ? 0 : -2;
  }
  Sleep(absl::DurationFromTimespec(*duration), "thrd_sleep");
  if (remaining != nullptr) *remaining = timespec{};
  return 0;
}

STACKCHECK_ENTRY_POINT int mtx_init(mtx_t* m, int type) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  if ((type & mtx_recursive) != 0) pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  const int rc = InitMutex(CALLER, MutexOfC11(m), &attr);
  pthread_mutexattr_destroy(&attr);
  return C11Result(rc);
}

STACKCHECK_ENTRY_POINT int mtx_lock(mtx_t* m) {
  return C11Result(LockMutex(CALLER, MutexOfC11(m), /*try_only=*/false));
}

STACKCHECK_ENTRY_POINT int mtx_trylock(mtx_t* m) {
  return C11Result(LockMutex(CALLER, MutexOfC11(m), /*try_only=*/true));
}

STACKCHECK_ENTRY_POINT int mtx_unlock(mtx_t* m) {
  return C11Result(UnlockMutex(CALLER, MutexOfC11(m)));
}

STACKCHECK_ENTRY_POINT void mtx_destroy(mtx_t* m) { DestroyMutex(CALLER, MutexOfC11(m)); }

// once_flag is a pthread_once_t in glibc.
STACKCHECK_ENTRY_POINT void call_once(once_flag* flag, void (*init)()) {
  RunOnce(CALLER, reinterpret_cast<pthread_once_t*>(flag), init);
}

STACKCHECK_ENTRY_POINT int cnd_wait(cnd_t* c, mtx_t* m) {
  return C11Result(CondWait(CALLER, CondOfC11(c), MutexOfC11(m)));
}

STACKCHECK_ENTRY_POINT int cnd_signal(cnd_t* c) {
  return C11Result(CondWake(CALLER, CondOfC11(c), 1, "cnd_signal"));
}

STACKCHECK_ENTRY_POINT int cnd_broadcast(cnd_t* c) {
  return C11Result(CondWake(CALLER, CondOfC11(c), UINT32_MAX, "cnd_broadcast"));
}

[[noreturn]] STACKCHECK_ENTRY_POINT void exit(int status) {
  // In a kernel's code (a fatal `error` directive, through libgomp's
  // gomp_fatal): libgomp's nvptx runtime aborts there instead, a trap.
  if (InKernelBody()) EndKernelWithTrap("exit() in device code (nvptx libgomp traps there)");
  if (Modelled(CALLER)) ExitBegins(status);
  Real().exit(status);
}

}  // extern "C"
