// The program's read-write locks and spin locks, as scheduling points of its
// threads' twins (program_threads.h). Left to the C library, a thread that
// finds one taken waits in a futex or spins on the CPU while the thread that
// holds it cannot be scheduled: the execution looks stuck. Modelled:
//
// - a pthread_rwlock_t as glibc's default kind (PTHREAD_RWLOCK_PREFER_READER_NP):
//   any number of readers, or one writer; a reader enters whenever no writer
//   holds the lock, even with writers waiting, so a thread may take a read
//   lock it already holds again; waiters wait on one queue per lock, woken by
//   every unlock to try again. The timed and clock variants time out when no
//   other thread can move (as a timed condition wait does). A writer's relock
//   is EDEADLK, as glibc answers it.
// - a pthread_spinlock_t as a lock that knows no owner: a thread waits until
//   someone unlocks it.
#include <pthread.h>
#include <time.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>

#include "core/host.h"
#include "sim/program/entry_point.h"
#include "sim/program/interposed_call.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

struct RwState {
  std::uint32_t queue = 0;
  unsigned readers = 0;              // read locks held, counting each relock
  ThreadId writer = kNoThread;       // the thread holding it for writing
  ThreadId last_reader = kNoThread;  // whom a waiting writer is blamed on
};

std::map<const pthread_rwlock_t*, RwState>& RwLocks() {
  static auto* locks = new std::map<const pthread_rwlock_t*, RwState>;
  return *locks;
}

RwState& RwOf(Twin& twin, const pthread_rwlock_t* l) {
  RwState& s = RwLocks()[l];
  if (s.queue == 0) s.queue = WaitQueueOf(twin, l, "pthread rwlock");
  return s;
}

enum class Wait { kBlock, kTry, kTimed };

// Takes the lock for reading or writing, waiting as `wait` says.
int TakeRw(Twin& twin, pthread_rwlock_t* l, bool write, Wait wait, const char* name) {
  RwState& s = RwOf(twin, l);
  const ThreadId me = twin.host.CurrentThread();
  twin.host.ProgramCall(name, s.queue);
  if (s.writer == me) return wait == Wait::kTry ? EBUSY : EDEADLK;
  for (;;) {
    const bool free = write ? s.writer == kNoThread && s.readers == 0 : s.writer == kNoThread;
    if (free) break;
    if (wait == Wait::kTry) return EBUSY;
    twin.host.BlameWaitQueue(s.queue, s.writer != kNoThread ? s.writer : s.last_reader);
    if (wait == Wait::kTimed) {
      if (!twin.host.WaitOnQueueOrTimeOut(s.queue)) return ETIMEDOUT;
    } else {
      twin.host.WaitOnQueue(s.queue);
    }
  }
  if (write) {
    s.writer = me;
  } else {
    ++s.readers;
    s.last_reader = me;
  }
  return 0;
}

int ReleaseRw(Twin& twin, pthread_rwlock_t* l) {
  RwState& s = RwOf(twin, l);
  twin.host.ProgramCall("pthread_rwlock_unlock", s.queue);
  if (s.writer != kNoThread) {
    s.writer = kNoThread;
  } else if (s.readers > 0) {
    --s.readers;
  } else {
    return EPERM;  // not held: glibc does not check; its state would be corrupt
  }
  twin.host.WakeQueue(s.queue, UINT32_MAX);
  return 0;
}

// One entry point's whole work: the model inside the caller's point, or the C
// library's function when the call is not the program's.
template <typename RealCall>
int RwCall(const void* caller, pthread_rwlock_t* l, bool write, Wait wait, const char* name,
           RealCall real) {
  if (!IsProgramSyncCall(caller)) return real();
  int rc = 0;
  if (!AtPoint([&](Twin& twin) { rc = TakeRw(twin, l, write, wait, name); })) return real();
  return rc;
}

struct SpinState {
  std::unique_ptr<Mutex> mutex;
};

std::map<const pthread_spinlock_t*, SpinState>& Spins() {
  static auto* spins = new std::map<const pthread_spinlock_t*, SpinState>;
  return *spins;
}

Mutex& SpinOf(Twin& twin, const pthread_spinlock_t* l) {
  SpinState& s = Spins()[l];
  if (s.mutex == nullptr) s.mutex = twin.host.NewMutex("pthread spinlock");
  return *s.mutex;
}

}  // namespace

extern "C" {

STACKCHECK_ENTRY_POINT int pthread_rwlock_init(pthread_rwlock_t* l,
                                               const pthread_rwlockattr_t* attr) {
  const int rc = Real().pthread_rwlock_init(l, attr);  // the bytes, for whoever reads them
  if (rc == 0 && IsProgramSyncCall(STACKCHECK_CALLER)) {
    AtPoint([&](Twin& twin) { RwLocks().erase(l), RwOf(twin, l); });
  }
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_destroy(pthread_rwlock_t* l) {
  if (!IsProgramSyncCall(STACKCHECK_CALLER)) return Real().pthread_rwlock_destroy(l);
  int rc = 0;
  AtPoint([&](Twin& twin) {
    RwState& s = RwOf(twin, l);
    rc = s.writer != kNoThread || s.readers > 0 ? EBUSY : 0;
  });
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  return RwCall(STACKCHECK_CALLER, l, false, Wait::kBlock, "pthread_rwlock_rdlock",
                [&] { return Real().pthread_rwlock_rdlock(l); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  return RwCall(STACKCHECK_CALLER, l, false, Wait::kTry, "pthread_rwlock_tryrdlock",
                [&] { return Real().pthread_rwlock_tryrdlock(l); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const timespec* t) {
  return RwCall(STACKCHECK_CALLER, l, false, Wait::kTimed, "pthread_rwlock_timedrdlock",
                [&] { return Real().pthread_rwlock_timedrdlock(l, t); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t c,
                                                      const timespec* t) {
  return RwCall(STACKCHECK_CALLER, l, false, Wait::kTimed, "pthread_rwlock_clockrdlock",
                [&] { return Real().pthread_rwlock_clockrdlock(l, c, t); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  return RwCall(STACKCHECK_CALLER, l, true, Wait::kBlock, "pthread_rwlock_wrlock",
                [&] { return Real().pthread_rwlock_wrlock(l); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  return RwCall(STACKCHECK_CALLER, l, true, Wait::kTry, "pthread_rwlock_trywrlock",
                [&] { return Real().pthread_rwlock_trywrlock(l); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const timespec* t) {
  return RwCall(STACKCHECK_CALLER, l, true, Wait::kTimed, "pthread_rwlock_timedwrlock",
                [&] { return Real().pthread_rwlock_timedwrlock(l, t); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t c,
                                                      const timespec* t) {
  return RwCall(STACKCHECK_CALLER, l, true, Wait::kTimed, "pthread_rwlock_clockwrlock",
                [&] { return Real().pthread_rwlock_clockwrlock(l, c, t); });
}

STACKCHECK_ENTRY_POINT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  if (!IsProgramSyncCall(STACKCHECK_CALLER)) return Real().pthread_rwlock_unlock(l);
  int rc = 0;
  if (!AtPoint([&](Twin& twin) { rc = ReleaseRw(twin, l); }))
    return Real().pthread_rwlock_unlock(l);
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_spin_init(pthread_spinlock_t* l, int shared) {
  const int rc = Real().pthread_spin_init(l, shared);
  if (rc == 0 && IsProgramSyncCall(STACKCHECK_CALLER)) {
    AtPoint([&](Twin& twin) { Spins().erase(l), SpinOf(twin, l); });
  }
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_spin_destroy(pthread_spinlock_t* l) {
  return Real().pthread_spin_destroy(l);  // glibc's does nothing
}

STACKCHECK_ENTRY_POINT int pthread_spin_lock(pthread_spinlock_t* l) {
  if (!IsProgramSyncCall(STACKCHECK_CALLER)) return Real().pthread_spin_lock(l);
  if (!AtPoint([&](Twin& twin) { SpinOf(twin, l).Lock(); })) return Real().pthread_spin_lock(l);
  return 0;
}

STACKCHECK_ENTRY_POINT int pthread_spin_trylock(pthread_spinlock_t* l) {
  if (!IsProgramSyncCall(STACKCHECK_CALLER)) return Real().pthread_spin_trylock(l);
  int rc = 0;
  if (!AtPoint([&](Twin& twin) { rc = SpinOf(twin, l).TryLock() ? 0 : EBUSY; })) {
    return Real().pthread_spin_trylock(l);
  }
  return rc;
}

STACKCHECK_ENTRY_POINT int pthread_spin_unlock(pthread_spinlock_t* l) {
  if (!IsProgramSyncCall(STACKCHECK_CALLER)) return Real().pthread_spin_unlock(l);
  if (!AtPoint([&](Twin& twin) { SpinOf(twin, l).Unlock(); })) return Real().pthread_spin_unlock(l);
  return 0;
}

}  // extern "C"

}  // namespace stackcheck::program
