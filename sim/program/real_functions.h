// The C library's own pthread, sleep, exit, fork and signal-mask functions, which this library
// interposes when preloaded: the interposers call these to do the real work,
// and the library's own code calls them directly.
#ifndef STACKCHECK_SIM_PROGRAM_REAL_FUNCTIONS_H_
#define STACKCHECK_SIM_PROGRAM_REAL_FUNCTIONS_H_

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include "absl/base/attributes.h"

namespace stackcheck::program {

struct RealFunctions {
  int (*pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  int (*pthread_join)(pthread_t, void**);
  [[noreturn]] void (*pthread_exit)(void*);
  int (*pthread_mutex_init)(pthread_mutex_t*, const pthread_mutexattr_t*);
  int (*pthread_mutex_lock)(pthread_mutex_t*);
  int (*pthread_mutex_trylock)(pthread_mutex_t*);
  int (*pthread_mutex_unlock)(pthread_mutex_t*);
  int (*pthread_mutex_destroy)(pthread_mutex_t*);
  int (*pthread_mutex_timedlock)(pthread_mutex_t*, const timespec*);
  int (*pthread_mutex_clocklock)(pthread_mutex_t*, clockid_t, const timespec*);
  int (*pthread_rwlock_init)(pthread_rwlock_t*, const pthread_rwlockattr_t*);
  int (*pthread_rwlock_destroy)(pthread_rwlock_t*);
  int (*pthread_rwlock_rdlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_tryrdlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_timedrdlock)(pthread_rwlock_t*, const timespec*);
  int (*pthread_rwlock_clockrdlock)(pthread_rwlock_t*, clockid_t, const timespec*);
  int (*pthread_rwlock_wrlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_trywrlock)(pthread_rwlock_t*);
  int (*pthread_rwlock_timedwrlock)(pthread_rwlock_t*, const timespec*);
  int (*pthread_rwlock_clockwrlock)(pthread_rwlock_t*, clockid_t, const timespec*);
  int (*pthread_rwlock_unlock)(pthread_rwlock_t*);
  int (*pthread_spin_init)(pthread_spinlock_t*, int);
  int (*pthread_spin_destroy)(pthread_spinlock_t*);
  int (*pthread_spin_lock)(pthread_spinlock_t*);
  int (*pthread_spin_trylock)(pthread_spinlock_t*);
  int (*pthread_spin_unlock)(pthread_spinlock_t*);
  int (*pthread_cond_init)(pthread_cond_t*, const pthread_condattr_t*);
  int (*pthread_cond_wait)(pthread_cond_t*, pthread_mutex_t*);
  int (*pthread_cond_timedwait)(pthread_cond_t*, pthread_mutex_t*, const timespec*);
  int (*pthread_cond_clockwait)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*);
  int (*pthread_cond_signal)(pthread_cond_t*);
  int (*pthread_cond_broadcast)(pthread_cond_t*);
  int (*pthread_cond_destroy)(pthread_cond_t*);
  int (*pthread_once)(pthread_once_t*, void (*)());
  int (*pthread_barrier_init)(pthread_barrier_t*, const pthread_barrierattr_t*, unsigned);
  int (*pthread_barrier_wait)(pthread_barrier_t*);
  int (*pthread_barrier_destroy)(pthread_barrier_t*);
  int (*sched_yield)();
  int (*nanosleep)(const timespec*, timespec*);
  int (*clock_nanosleep)(clockid_t, int, const timespec*, timespec*);
  int (*usleep)(unsigned);
  unsigned (*sleep)(unsigned);
  [[noreturn]] void (*exit)(int);
  pid_t (*fork)();
  int (*sigprocmask)(int, const sigset_t*, sigset_t*);
  int (*pthread_sigmask)(int, const sigset_t*, sigset_t*);
  void* (*dlsym)(void*, const char*);
};

// Resolved on first use (the next definition after this library's).
const RealFunctions& Real();

// pthread_create for this library's own threads (the simulator's, a
// kernel's): the first definition in the process, so that a sanitizer's
// interceptor preloaded ahead of this library (--config=asan) knows the
// thread; its call into this library's pthread_create is not the program's
// (OwnCallScope, interposed_call.h) and goes on to the C library.
int CreateOwnThread(pthread_t* handle, const pthread_attr_t* attr, void* (*start)(void*),
                    void* argument);

// The C library's dlsym (Real().dlsym), callable before anything else here is
// set up: an ASan runtime preloaded before this library (--config=asan) looks
// its interceptors up through the interposed dlsym while it starts, before its
// shadow memory exists, so this path is not instrumented and calls no function
// ASan intercepts.
ABSL_ATTRIBUTE_NO_SANITIZE_ADDRESS void* CallRealDlsym(void* handle, const char* name);
// The C library's dlsym function itself (no other libc call: see above).
ABSL_ATTRIBUTE_NO_SANITIZE_ADDRESS void* RealDlsymFunction();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_REAL_FUNCTIONS_H_
