#include "sim/program/real_functions.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "sim/program/interposed_call.h"

namespace stackcheck::program {
namespace {

// Looked up on every call, without a guarded static: this runs while an ASan
// runtime starts (CallRealDlsym), and the lookup is rare.
ABSL_ATTRIBUTE_NO_SANITIZE_ADDRESS void* RealDlsym(void* handle, const char* name) {
  using Dlsym = void* (*)(void*, const char*);
  return reinterpret_cast<Dlsym>(RealDlsymFunction())(handle, name);
}

template <typename F>
void Resolve(F* slot, const char* name) {
  void* f = RealDlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "stackcheck libcuda: the C library has no %s\n", name);
    std::abort();
  }
  *slot = reinterpret_cast<F>(f);
}

RealFunctions ResolveAll() {
  RealFunctions r{};
  Resolve(&r.pthread_create, "pthread_create");
  Resolve(&r.pthread_join, "pthread_join");
  Resolve(&r.pthread_exit, "pthread_exit");
  Resolve(&r.pthread_mutex_init, "pthread_mutex_init");
  Resolve(&r.pthread_mutex_lock, "pthread_mutex_lock");
  Resolve(&r.pthread_mutex_trylock, "pthread_mutex_trylock");
  Resolve(&r.pthread_mutex_unlock, "pthread_mutex_unlock");
  Resolve(&r.pthread_mutex_destroy, "pthread_mutex_destroy");
  Resolve(&r.pthread_mutex_timedlock, "pthread_mutex_timedlock");
  Resolve(&r.pthread_mutex_clocklock, "pthread_mutex_clocklock");
  Resolve(&r.pthread_rwlock_init, "pthread_rwlock_init");
  Resolve(&r.pthread_rwlock_destroy, "pthread_rwlock_destroy");
  Resolve(&r.pthread_rwlock_rdlock, "pthread_rwlock_rdlock");
  Resolve(&r.pthread_rwlock_tryrdlock, "pthread_rwlock_tryrdlock");
  Resolve(&r.pthread_rwlock_timedrdlock, "pthread_rwlock_timedrdlock");
  Resolve(&r.pthread_rwlock_clockrdlock, "pthread_rwlock_clockrdlock");
  Resolve(&r.pthread_rwlock_wrlock, "pthread_rwlock_wrlock");
  Resolve(&r.pthread_rwlock_trywrlock, "pthread_rwlock_trywrlock");
  Resolve(&r.pthread_rwlock_timedwrlock, "pthread_rwlock_timedwrlock");
  Resolve(&r.pthread_rwlock_clockwrlock, "pthread_rwlock_clockwrlock");
  Resolve(&r.pthread_rwlock_unlock, "pthread_rwlock_unlock");
  Resolve(&r.pthread_spin_init, "pthread_spin_init");
  Resolve(&r.pthread_spin_destroy, "pthread_spin_destroy");
  Resolve(&r.pthread_spin_lock, "pthread_spin_lock");
  Resolve(&r.pthread_spin_trylock, "pthread_spin_trylock");
  Resolve(&r.pthread_spin_unlock, "pthread_spin_unlock");
  Resolve(&r.pthread_cond_init, "pthread_cond_init");
  Resolve(&r.pthread_cond_wait, "pthread_cond_wait");
  Resolve(&r.pthread_cond_timedwait, "pthread_cond_timedwait");
  Resolve(&r.pthread_cond_clockwait, "pthread_cond_clockwait");
  Resolve(&r.pthread_cond_signal, "pthread_cond_signal");
  Resolve(&r.pthread_cond_broadcast, "pthread_cond_broadcast");
  Resolve(&r.pthread_cond_destroy, "pthread_cond_destroy");
  Resolve(&r.pthread_once, "pthread_once");
  Resolve(&r.pthread_barrier_init, "pthread_barrier_init");
  Resolve(&r.pthread_barrier_wait, "pthread_barrier_wait");
  Resolve(&r.pthread_barrier_destroy, "pthread_barrier_destroy");
  Resolve(&r.sched_yield, "sched_yield");
  Resolve(&r.nanosleep, "nanosleep");
  Resolve(&r.clock_nanosleep, "clock_nanosleep");
  Resolve(&r.usleep, "usleep");
  Resolve(&r.sleep, "sleep");
  Resolve(&r.exit, "exit");
  Resolve(&r.fork, "fork");
  Resolve(&r.sigprocmask, "sigprocmask");
  Resolve(&r.pthread_sigmask, "pthread_sigmask");
  r.dlsym = &RealDlsym;
  return r;
}

}  // namespace

// dlsym itself is interposed (plugin_calls.cc), so the real one comes from
// dlvsym, which is not; glibc 2.34 moved it into libc under a new version.
void* RealDlsymFunction() {
  void* f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  return f != nullptr ? f : dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

void* CallRealDlsym(void* handle, const char* name) { return RealDlsym(handle, name); }

int CreateOwnThread(pthread_t* handle, const pthread_attr_t* attr, void* (*start)(void*),
                    void* argument) {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const auto first = reinterpret_cast<Create>(RealDlsym(RTLD_DEFAULT, "pthread_create"));
  const OwnCallScope own;
  return first(handle, attr, start, argument);
}

const RealFunctions& Real() {
  static const RealFunctions real = ResolveAll();
  return real;
}

}  // namespace stackcheck::program
