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
//  - faults (STACKCHECK_OBSERVE_OOM_AT=N,M): those cuMemAlloc calls fail
//    with CUDA_ERROR_OUT_OF_MEMORY, as `exec`'s oom@alloc plans make them.
//  - watchdog (STACKCHECK_OBSERVE_WATCHDOG_S=S): a process still running
//    after S seconds is reported stuck — each thread's last call and whether
//    it is still inside it — and ends with status 87, instead of hanging.
//  - steering (STACKCHECK_OBSERVE_STEER=FILE): the order in which a
//    simulated execution's threads entered the wrapped calls (libgomp's
//    offloading entry points, the plugin's and the driver's; `stackcheck
//    replay EXEC-REPLAY --format steer`), enforced on the real driver: a
//    thread entering its n-th call of a name waits until every call the
//    file puts before that one in other threads has been entered. Threads
//    are numbered as the simulator numbers them: T0 the main thread, T<k>
//    the k-th the program creates (threads the driver creates are not
//    steered). Entries only: a call that blocks on the real driver (a
//    synchronize waiting for a trap to reach the host) is ordered by its
//    entry. A wait longer than STACKCHECK_OBSERVE_STEER_TIMEOUT_S (5 s)
//    means the run left the recorded path; steering then stops, and the
//    report says where.
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

// --- steering -------------------------------------------------------------------
struct SteerEntry {
  int thread = -1;
  char name[48] = {};
  std::atomic<bool> entered{false};
};
constexpr int kMaxSteer = 8192;
SteerEntry g_steer[kMaxSteer];
int g_steer_count = 0;
Clock g_steer_timeout_ns = 5000000000ull;
std::atomic<bool> g_steer_off{false};
std::atomic<std::uint64_t> g_steer_gates{0};  // calls that found an entry
std::atomic<std::uint64_t> g_steer_held{0};   // of those, calls that waited
std::atomic<std::uint64_t> g_steer_longest_ns{0};
std::atomic<int> g_steer_gave_up_at{-1};  // the entry waited for in vain
std::atomic<int> g_steer_gave_up_thread{-1};

std::atomic<int> g_threads_created{0};
thread_local int t_program_thread = -1;  // T<k>; -1: not steered

// This thread's count of calls per name, to find its n-th call's entry.
struct NameCount {
  const char* name;
  int count;
};
thread_local NameCount t_counts[64];
thread_local int t_count_used = 0;

int Occurrence(const char* name) {
  for (int i = 0; i < t_count_used; ++i) {
    if (t_counts[i].name == name || std::strcmp(t_counts[i].name, name) == 0) {
      return t_counts[i].count++;
    }
  }
  if (t_count_used == 64) return -1;
  t_counts[t_count_used++] = NameCount{name, 1};
  return 0;
}

void Steer(const char* name) {
  if (g_steer_count == 0 || t_program_thread < 0 || g_steer_off.load()) return;
  const int n = Occurrence(name);
  if (n < 0) return;
  int at = -1;
  for (int i = 0, seen = 0; i < g_steer_count; ++i) {
    if (g_steer[i].thread == t_program_thread && std::strcmp(g_steer[i].name, name) == 0 &&
        seen++ == n) {
      at = i;
      break;
    }
  }
  if (at < 0) return;  // a call the simulated execution did not make here
  g_steer_gates.fetch_add(1);
  const Clock start = Now();
  bool held = false;
  for (int q = 0; q < at && !g_steer_off.load(); ++q) {
    if (g_steer[q].thread == t_program_thread) continue;
    while (!g_steer[q].entered.load(std::memory_order_acquire)) {
      held = true;
      if (g_steer_off.load()) break;
      if (Now() - start > g_steer_timeout_ns) {
        g_steer_gave_up_at.store(q);
        g_steer_gave_up_thread.store(t_program_thread);
        g_steer_off.store(true);
        break;
      }
      timespec d{0, 50000};
      nanosleep(&d, nullptr);
    }
  }
  if (held) {
    g_steer_held.fetch_add(1);
    const Clock ns = Now() - start;
    std::uint64_t m = g_steer_longest_ns.load();
    while (ns > m && !g_steer_longest_ns.compare_exchange_weak(m, ns)) {
    }
  }
  g_steer[at].entered.store(true, std::memory_order_release);
}

class Timed {
 public:
  explicit Timed(const char* name) : name_(name) {
    Steer(name);
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
  if (g_steer_count > 0) {
    std::fprintf(out,
                 "stackcheck observe: pid %d steering: %d recorded calls, %llu met, %llu "
                 "held (longest %.1f ms)",
                 static_cast<int>(getpid()), g_steer_count,
                 static_cast<unsigned long long>(g_steer_gates.load()),
                 static_cast<unsigned long long>(g_steer_held.load()),
                 g_steer_longest_ns.load() / 1e6);
    const int q = g_steer_gave_up_at.load();
    if (q >= 0) {
      std::fprintf(out, "; GAVE UP: T%d waited %.0f s for entry %d (T%d %s) and steering stopped",
                   g_steer_gave_up_thread.load(), g_steer_timeout_ns / 1e9, q + 1,
                   g_steer[q].thread, g_steer[q].name);
    }
    std::fprintf(out, "\n");
  }
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
#define DRIVER_CALL(ret, name, params, args) \
  ret(*real_##name) params = nullptr;        \
  ret wrap_##name params {                   \
    Timed timed_call(#name);                 \
    return real_##name args;                 \
  }

DRIVER_CALL(bool, GOMP_OFFLOAD_init_device, (int a), (a))
DRIVER_CALL(bool, GOMP_OFFLOAD_fini_device, (int a), (a))
DRIVER_CALL(int, GOMP_OFFLOAD_load_image, (int a, unsigned b, const void* c, void* d), (a, b, c, d))
DRIVER_CALL(void*, GOMP_OFFLOAD_alloc, (int a, std::size_t b), (a, b))
DRIVER_CALL(bool, GOMP_OFFLOAD_free, (int a, void* b), (a, b))
DRIVER_CALL(bool, GOMP_OFFLOAD_dev2host, (int a, void* b, const void* c, std::size_t d),
            (a, b, c, d))
DRIVER_CALL(bool, GOMP_OFFLOAD_host2dev, (int a, void* b, const void* c, std::size_t d),
            (a, b, c, d))
DRIVER_CALL(void, GOMP_OFFLOAD_run, (int a, void* b, void* c, void** d), (a, b, c, d))
DRIVER_CALL(int, cuLaunchKernel,
            (void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
             unsigned sh, void* s, void** p, void** e),
            (f, gx, gy, gz, bx, by, bz, sh, s, p, e))
DRIVER_CALL(int, cuCtxSynchronize, (), ())
// Fault injection (STACKCHECK_OBSERVE_OOM_AT=N[,M...]): those cuMemAlloc
// calls (1-based, in the order the plugin makes them) return
// CUDA_ERROR_OUT_OF_MEMORY without reaching the driver: the simulator's
// `oom@alloc:N` plans, on the real driver, so that a steered execution meets
// the same failures.
constexpr int kMaxOoms = 16;
constexpr int kOutOfMemory = 2;  // CUDA_ERROR_OUT_OF_MEMORY
std::uint32_t g_oom_at[kMaxOoms];
int g_oom_count = 0;
std::atomic<std::uint32_t> g_alloc_calls{0};

int (*real_cuMemAlloc_v2)(std::uint64_t*, std::size_t) = nullptr;
int wrap_cuMemAlloc_v2(std::uint64_t* p, std::size_t n) {
  Timed timed_call("cuMemAlloc_v2");
  const std::uint32_t call = ++g_alloc_calls;
  for (int i = 0; i < g_oom_count; ++i) {
    if (g_oom_at[i] == call) return kOutOfMemory;
  }
  return real_cuMemAlloc_v2(p, n);
}
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
DRIVER_CALL(int, cuMemGetInfo_v2, (std::size_t * f, std::size_t* t), (f, t))

struct Wrapper {
  const char* name;
  void** real;
  void* wrapper;
};

#define ROW(name) \
  { #name, reinterpret_cast < void**>(&real_##name), reinterpret_cast < void*>(&wrap_##name) }
const Wrapper kWrappers[] = {
    ROW(GOMP_OFFLOAD_init_device),
    ROW(GOMP_OFFLOAD_fini_device),
    ROW(GOMP_OFFLOAD_load_image),
    ROW(GOMP_OFFLOAD_alloc),
    ROW(GOMP_OFFLOAD_free),
    ROW(GOMP_OFFLOAD_dev2host),
    ROW(GOMP_OFFLOAD_host2dev),
    ROW(GOMP_OFFLOAD_run),
    ROW(cuLaunchKernel),
    ROW(cuCtxSynchronize),
    ROW(cuMemAlloc_v2),
    ROW(cuMemFree_v2),
    ROW(cuMemcpyHtoD_v2),
    ROW(cuMemcpyDtoH_v2),
    ROW(cuStreamSynchronize),
    ROW(cuCtxGetDevice),
    ROW(cuCtxGetCurrent),
    ROW(cuCtxPushCurrent_v2),
    ROW(cuCtxPopCurrent_v2),
    ROW(cuOccupancyMaxPotentialBlockSize),
    ROW(cuFuncGetAttribute),
    ROW(cuDeviceGetAttribute),
    ROW(cuMemGetInfo_v2),
};

// --- the watchdog ----------------------------------------------------------------
void* Watchdog(void* arg) {
  const long seconds = reinterpret_cast<long>(arg);
  sleep(static_cast<unsigned>(seconds));
  std::FILE* out = Out();
  std::fprintf(out,
               "stackcheck observe: pid %d STUCK: still running after %ld s; each "
               "thread's last timed call:\n",
               static_cast<int>(getpid()), seconds);
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

// Keeps the recorded calls the wrappers can see: an entry of a call no
// wrapper times would never be entered, and every later gate would wait.
void LoadSteering(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) {
    std::fprintf(stderr, "stackcheck observe: cannot read STACKCHECK_OBSERVE_STEER=%s\n", path);
    _exit(2);
  }
  char line[256];
  int number = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    ++number;
    if (line[0] == '#' || line[0] == '\n') continue;
    int thread = -1;
    char name[48] = {};
    if (std::sscanf(line, "T%d %47s", &thread, name) != 2 || thread < 0) {
      std::fprintf(stderr, "stackcheck observe: %s line %d: not 'T<k> <call>'\n", path, number);
      _exit(2);
    }
    bool wrapped = false;
    for (const char* own :
         {"pthread_mutex_lock", "GOMP_target_ext", "GOMP_target_data_ext", "GOMP_target_update_ext",
          "GOMP_target_enter_exit_data", "omp_target_alloc", "omp_target_free"}) {
      wrapped |= std::strcmp(name, own) == 0;
    }
    for (const Wrapper& w : kWrappers) wrapped |= std::strcmp(w.name, name) == 0;
    if (!wrapped) continue;
    if (g_steer_count == kMaxSteer) {
      std::fprintf(stderr, "stackcheck observe: %s: more than %d calls\n", path, kMaxSteer);
      _exit(2);
    }
    g_steer[g_steer_count].thread = thread;
    std::memcpy(g_steer[g_steer_count].name, name, sizeof name);
    ++g_steer_count;
  }
  std::fclose(f);
}

__attribute__((constructor)) void Start() {
  t_program_thread = 0;  // constructors run on the main thread
  if (const char* j = std::getenv("STACKCHECK_OBSERVE_JITTER_US")) g_jitter_us = std::atoi(j);
  if (const char* t = std::getenv("STACKCHECK_OBSERVE_STEER_TIMEOUT_S")) {
    const long seconds = std::atol(t);
    if (seconds > 0) g_steer_timeout_ns = static_cast<Clock>(seconds) * 1000000000ull;
  }
  if (const char* oom = std::getenv("STACKCHECK_OBSERVE_OOM_AT")) {
    for (const char* at = oom; *at != '\0' && g_oom_count < kMaxOoms;) {
      const long n = std::atol(at);
      if (n > 0) g_oom_at[g_oom_count++] = static_cast<std::uint32_t>(n);
      at = std::strchr(at, ',');
      if (at == nullptr) break;
      ++at;
    }
  }
  const char* steer = std::getenv("STACKCHECK_OBSERVE_STEER");
  if (steer != nullptr && *steer != '\0') LoadSteering(steer);
  if (const char* w = std::getenv("STACKCHECK_OBSERVE_WATCHDOG_S")) {
    const long seconds = std::atol(w);
    if (seconds > 0) {
      using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
      auto create = reinterpret_cast<Create>(RealDlsym(RTLD_NEXT, "pthread_create"));
      pthread_t t;
      if (create != nullptr &&
          create(&t, nullptr, &Watchdog, reinterpret_cast<void*>(seconds)) == 0) {
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

// Numbers the program's threads as the simulator does (creation order);
// threads the driver creates for itself are not the program's.
struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
  int program_thread;
};

static void* StartThread(void* p) {
  ThreadStart start = *static_cast<ThreadStart*>(p);
  std::free(p);
  t_program_thread = start.program_thread;
  return start.routine(start.arg);
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*),
                   void* arg) {
  using F = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static F real = reinterpret_cast<F>(RealDlsym(RTLD_NEXT, "pthread_create"));
  Dl_info caller{};
  const bool by_driver = dladdr(__builtin_return_address(0), &caller) != 0 &&
                         caller.dli_fname != nullptr &&
                         std::strstr(caller.dli_fname, "libcuda") != nullptr;
  auto* start = static_cast<ThreadStart*>(std::malloc(sizeof(ThreadStart)));
  if (start == nullptr) return real(thread, attr, routine, arg);
  *start = ThreadStart{routine, arg, by_driver ? -1 : g_threads_created.fetch_add(1) + 1};
  const int r = real(thread, attr, &StartThread, start);
  if (r != 0) std::free(start);
  return r;
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

// The program's calls into libgomp's offloading entry points (libgomp_g.h
// and omp.h of GCC 12), timed, and where steering holds a thread: before
// libgomp takes its device lock.
#define OPENMP_CALL(ret, name, params, args)                          \
  ret name params {                                                   \
    using F = ret(*) params;                                          \
    static F next = reinterpret_cast<F>(RealDlsym(RTLD_NEXT, #name)); \
    Timed timed_call(#name);                                          \
    return next args;                                                 \
  }
OPENMP_CALL(void, GOMP_target_ext,
            (int d, void (*fn)(void*), size_t n, void** a, size_t* s, unsigned short* k,
             unsigned int f, void** dep, void** args),
            (d, fn, n, a, s, k, f, dep, args))
OPENMP_CALL(void, GOMP_target_data_ext, (int d, size_t n, void** a, size_t* s, unsigned short* k),
            (d, n, a, s, k))
OPENMP_CALL(void, GOMP_target_update_ext,
            (int d, size_t n, void** a, size_t* s, unsigned short* k, unsigned int f, void** dep),
            (d, n, a, s, k, f, dep))
OPENMP_CALL(void, GOMP_target_enter_exit_data,
            (int d, size_t n, void** a, size_t* s, unsigned short* k, unsigned int f, void** dep),
            (d, n, a, s, k, f, dep))
OPENMP_CALL(void*, omp_target_alloc, (size_t size, int d), (size, d))
OPENMP_CALL(void, omp_target_free, (void* p, int d), (p, d))

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
