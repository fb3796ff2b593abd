// libstackcheck_observe.so: preloaded into an OpenMP offload program running
// on the real CUDA driver, it makes the run observable and shakes its
// schedule, without changing what the program does:
//
//  - timing: every call the plugin makes to the driver (for the calls below)
//    and every call libgomp makes to the plugin (GOMP_OFFLOAD_*) is timed;
//    at exit a table gives, per call name, the count and the total, mean and
//    largest time, which break a region's cost down (mapping, launch, sync,
//    copies back). Both kinds of function are found through dlsym (libgomp
//    finds the plugin's, the plugin finds the driver's), which this library
//    interposes to hand out timed wrappers.
//  - jitter (STACKCHECK_OBSERVE_JITTER_US=N): a random delay of up to N µs
//    before every wrapped call and pthread mutex operation, so that rare
//    interleavings happen more often.
//  - watchdog (STACKCHECK_OBSERVE_WATCHDOG_S=S): a process still running
//    after S seconds is reported stuck — each thread's last call and whether
//    it is still inside it — and ends with status 87, instead of hanging.
//
// The report goes to stderr, or to the file STACKCHECK_OBSERVE_OUT names.
// Only the C library is used, so the library runs on any GPU machine.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using Clock = std::uint64_t;
Clock Now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<Clock>(t.tv_sec) * 1000000000ull + t.tv_nsec;
}

void* RealDlsym(void* handle, const char* name) {
  using Dlsym = void* (*)(void*, const char*);
  static Dlsym real = [] {
    void* f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (f == nullptr) f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return reinterpret_cast<Dlsym>(f);
  }();
  return real(handle, name);
}

// --- per-call statistics (lock-free: one slot per call name) ----------------
struct Stat {
  const char* name;
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> total_ns{0};
  std::atomic<std::uint64_t> max_ns{0};
};

constexpr int kMaxStats = 64;
Stat g_stats[kMaxStats];
std::atomic<int> g_stat_count{0};

Stat* StatFor(const char* name) {
  const int n = g_stat_count.load();
  for (int i = 0; i < n; ++i) {
    if (std::strcmp(g_stats[i].name, name) == 0) return &g_stats[i];
  }
  const int i = g_stat_count.fetch_add(1);
  if (i >= kMaxStats) return nullptr;
  g_stats[i].name = name;
  return &g_stats[i];
}

// --- jitter -------------------------------------------------------------------
unsigned g_jitter_us = 0;
thread_local unsigned t_seed = 0;

void Jitter() {
  if (g_jitter_us == 0) return;
  if (t_seed == 0) t_seed = static_cast<unsigned>(Now()) | 1;
  const unsigned us = static_cast<unsigned>(rand_r(&t_seed)) % (g_jitter_us + 1);
  if (us > 0) {
    timespec d{0, static_cast<long>(us) * 1000};
    nanosleep(&d, nullptr);
  }
}

// --- each thread's last call, for the watchdog --------------------------------
struct ThreadSlot {
  std::atomic<pthread_t> thread{};
  std::atomic<const char*> last{nullptr};
  std::atomic<bool> inside{false};
  std::atomic<Clock> since{0};
};
constexpr int kMaxThreads = 64;
ThreadSlot g_threads[kMaxThreads];
std::atomic<int> g_thread_count{0};
thread_local ThreadSlot* t_slot = nullptr;

ThreadSlot* Slot() {
  if (t_slot == nullptr) {
    const int i = g_thread_count.fetch_add(1);
    if (i < kMaxThreads) {
      t_slot = &g_threads[i];
      t_slot->thread.store(pthread_self());
    }
  }
  return t_slot;
}

class Timed {
 public:
  explicit Timed(const char* name) : name_(name) {
    Jitter();
    if (ThreadSlot* s = Slot()) {
      s->last.store(name);
      s->inside.store(true);
      s->since.store(Now());
    }
    start_ = Now();
  }
  ~Timed() {
    const Clock ns = Now() - start_;
    if (Stat* st = StatFor(name_)) {
      st->count.fetch_add(1);
      st->total_ns.fetch_add(ns);
      std::uint64_t m = st->max_ns.load();
      while (ns > m && !st->max_ns.compare_exchange_weak(m, ns)) {
      }
    }
    if (ThreadSlot* s = Slot()) s->inside.store(false);
  }

 private:
  const char* name_;
  Clock start_;
};

std::FILE* Out() {
  static std::FILE* out = [] {
    const char* path = std::getenv("STACKCHECK_OBSERVE_OUT");
    // Appended to: the driver may start processes of its own, which inherit
    // this library; each report names its process.
    std::FILE* f = path != nullptr ? std::fopen(path, "a") : nullptr;
    return f != nullptr ? f : stderr;
  }();
  return out;
}

void Report() {
  const int n = std::min(g_stat_count.load(), kMaxStats);
  if (n == 0) return;  // a process that made none of the calls (a helper)
  std::FILE* out = Out();
  std::fprintf(out, "stackcheck observe: pid %d, calls timed (count, total, mean, max)\n",
               static_cast<int>(getpid()));
  for (int i = 0; i < n; ++i) {
    const Stat& s = g_stats[i];
    const std::uint64_t c = s.count.load();
    if (c == 0) continue;
    std::fprintf(out, "  %-28s %8llu  %10.1f us  %8.1f us  %8.1f us\n", s.name,
                 static_cast<unsigned long long>(c), s.total_ns.load() / 1e3,
                 s.total_ns.load() / 1e3 / c, s.max_ns.load() / 1e3);
  }
  std::fflush(out);
}

// --- wrappers ------------------------------------------------------------------
// The GOMP_OFFLOAD_* functions libgomp calls (libgomp-plugin.h's signatures)
// and the driver calls of a region's path (the CUDA Driver API's).
#define DRIVER_CALL(ret, name, params, args)        \
  ret (*real_##name) params = nullptr;             \
  ret wrap_##name params {                         \
    Timed timed_call(#name);                       \
    return real_##name args;                       \
  }

DRIVER_CALL(bool, GOMP_OFFLOAD_init_device, (int a), (a))
DRIVER_CALL(bool, GOMP_OFFLOAD_fini_device, (int a), (a))
DRIVER_CALL(int, GOMP_OFFLOAD_load_image, (int a, unsigned b, const void* c, void* d), (a, b, c, d))
DRIVER_CALL(void*, GOMP_OFFLOAD_alloc, (int a, std::size_t b), (a, b))
DRIVER_CALL(bool, GOMP_OFFLOAD_free, (int a, void* b), (a, b))
DRIVER_CALL(bool, GOMP_OFFLOAD_dev2host, (int a, void* b, const void* c, std::size_t d), (a, b, c, d))
DRIVER_CALL(bool, GOMP_OFFLOAD_host2dev, (int a, void* b, const void* c, std::size_t d), (a, b, c, d))
DRIVER_CALL(void, GOMP_OFFLOAD_run, (int a, void* b, void* c, void** d), (a, b, c, d))
DRIVER_CALL(int, cuLaunchKernel,
            (void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
             unsigned bz, unsigned sh, void* s, void** p, void** e),
            (f, gx, gy, gz, bx, by, bz, sh, s, p, e))
DRIVER_CALL(int, cuCtxSynchronize, (), ())
DRIVER_CALL(int, cuMemAlloc_v2, (std::uint64_t* p, std::size_t n), (p, n))
DRIVER_CALL(int, cuMemFree_v2, (std::uint64_t p), (p))
DRIVER_CALL(int, cuMemcpyHtoD_v2, (std::uint64_t d, const void* s, std::size_t n), (d, s, n))
DRIVER_CALL(int, cuMemcpyDtoH_v2, (void* d, std::uint64_t s, std::size_t n), (d, s, n))
DRIVER_CALL(int, cuStreamSynchronize, (void* s), (s))
DRIVER_CALL(int, cuCtxGetDevice, (int* d), (d))
DRIVER_CALL(int, cuCtxGetCurrent, (void** c), (c))
DRIVER_CALL(int, cuCtxPushCurrent_v2, (void* c), (c))
DRIVER_CALL(int, cuCtxPopCurrent_v2, (void** c), (c))
DRIVER_CALL(int, cuOccupancyMaxPotentialBlockSize,
            (int* a, int* b, void* f, void* g, std::size_t h, int i), (a, b, f, g, h, i))
DRIVER_CALL(int, cuFuncGetAttribute, (int* v, int a, void* f), (v, a, f))
DRIVER_CALL(int, cuDeviceGetAttribute, (int* v, int a, int d), (v, a, d))
DRIVER_CALL(int, cuMemGetInfo_v2, (std::size_t* f, std::size_t* t), (f, t))

struct Wrapper {
  const char* name;
  void** real;
  void* wrapper;
};

#define ROW(name) {#name, reinterpret_cast<void**>(&real_##name), reinterpret_cast<void*>(&wrap_##name)}
const Wrapper kWrappers[] = {
    ROW(GOMP_OFFLOAD_init_device), ROW(GOMP_OFFLOAD_fini_device), ROW(GOMP_OFFLOAD_load_image),
    ROW(GOMP_OFFLOAD_alloc),       ROW(GOMP_OFFLOAD_free),        ROW(GOMP_OFFLOAD_dev2host),
    ROW(GOMP_OFFLOAD_host2dev),    ROW(GOMP_OFFLOAD_run),         ROW(cuLaunchKernel),
    ROW(cuCtxSynchronize),         ROW(cuMemAlloc_v2),            ROW(cuMemFree_v2),
    ROW(cuMemcpyHtoD_v2),          ROW(cuMemcpyDtoH_v2),          ROW(cuStreamSynchronize),
    ROW(cuCtxGetDevice),           ROW(cuCtxGetCurrent),          ROW(cuCtxPushCurrent_v2),
    ROW(cuCtxPopCurrent_v2),       ROW(cuOccupancyMaxPotentialBlockSize),
    ROW(cuFuncGetAttribute),       ROW(cuDeviceGetAttribute),     ROW(cuMemGetInfo_v2),
};

// --- the watchdog ----------------------------------------------------------------
void* Watchdog(void* arg) {
  const long seconds = reinterpret_cast<long>(arg);
  sleep(static_cast<unsigned>(seconds));
  std::FILE* out = Out();
  std::fprintf(out, "stackcheck observe: pid %d STUCK: still running after %ld s; each "
               "thread's last timed call:\n", static_cast<int>(getpid()), seconds);
  const Clock now = Now();
  const int n = std::min(g_thread_count.load(), kMaxThreads);
  for (int i = 0; i < n; ++i) {
    const ThreadSlot& s = g_threads[i];
    const char* last = s.last.load();
    if (s.inside.load()) {
      std::fprintf(out, "  thread %d: %s -- still inside it, for %.1f s\n", i + 1,
                   last != nullptr ? last : "(none)", (now - s.since.load()) / 1e9);
    } else {
      std::fprintf(out, "  thread %d: %s, returned\n", i + 1, last != nullptr ? last : "(none)");
    }
  }
  Report();
  std::fflush(nullptr);
  _exit(87);
}

__attribute__((constructor)) void Start() {
  if (const char* j = std::getenv("STACKCHECK_OBSERVE_JITTER_US")) g_jitter_us = std::atoi(j);
  if (const char* w = std::getenv("STACKCHECK_OBSERVE_WATCHDOG_S")) {
    const long seconds = std::atol(w);
    if (seconds > 0) {
      using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
      auto create = reinterpret_cast<Create>(RealDlsym(RTLD_NEXT, "pthread_create"));
      pthread_t t;
      if (create != nullptr && create(&t, nullptr, &Watchdog, reinterpret_cast<void*>(seconds)) == 0) {
        pthread_detach(t);
      }
    }
  }
  std::atexit(&Report);
}

}  // namespace

extern "C" {

void* dlsym(void* handle, const char* name) {
  void* f = RealDlsym(handle, name);
  if (f == nullptr) return f;
  for (const Wrapper& w : kWrappers) {
    if (std::strcmp(w.name, name) == 0) {
      *w.real = f;
      return w.wrapper;
    }
  }
  return f;
}

int pthread_mutex_lock(pthread_mutex_t* m) {
  using F = int (*)(pthread_mutex_t*);
  static F real = reinterpret_cast<F>(RealDlsym(RTLD_NEXT, "pthread_mutex_lock"));
  Timed t("pthread_mutex_lock");
  return real(m);
}

int pthread_mutex_unlock(pthread_mutex_t* m) {
  using F = int (*)(pthread_mutex_t*);
  static F real = reinterpret_cast<F>(RealDlsym(RTLD_NEXT, "pthread_mutex_unlock"));
  Jitter();
  return real(m);
}

// exit() runs the exit handlers (libgomp's gomp_target_fini takes the device
// lock, a futex no preload can wrap): a thread stuck there shows as in exit.
[[noreturn]] void exit(int status) {
  using F = void (*)(int);
  static F real = reinterpret_cast<F>(RealDlsym(RTLD_NEXT, "exit"));
  if (ThreadSlot* s = Slot()) {
    s->last.store("exit (its handlers: libgomp's gomp_target_fini)");
    s->inside.store(true);
    s->since.store(Now());
  }
  real(status);
  __builtin_unreachable();
}

}  // extern "C"
