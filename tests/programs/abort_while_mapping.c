/* abort_while_mapping MODE REGIONS TRAP_REGION ITERATIONS

   Two pthreads start together (a barrier) and nothing else orders them:
   - thread A runs REGIONS `#pragma omp target teams` regions, each mapping a
     small array tofrom; region number TRAP_REGION (0-based; -1: none) traps
     on the device: the region receives the flag and calls __builtin_trap()
     on it, so on a GPU the kernel aborts and libgomp's nvptx plugin raises a
     fatal error in GOMP_OFFLOAD_run, which exits the process;
   - thread B does ITERATIONS times what MODE says:
       map      `target enter data` then `target exit data` of a buffer
                (GOMP_OFFLOAD_alloc and GOMP_OFFLOAD_free under the device lock)
       update   `target update to` and `from` of a buffer mapped once before
                (host<->device copies under the device lock)
       alloc    omp_target_alloc then omp_target_free
       regions  a small target region mapping a buffer tofrom

   Under the simulated driver kernels do not execute: a trap happens only
   where a fault plan injects one into a launch.

   When both threads finish, prints one line and exits 0:
     abort_while_mapping: mode M, A R regions (trap at region K), B N
     iterations: both threads finished
   A trap ends the process in libgomp's fatal error instead (exit status 1),
   or, with GCC 12.2's plugin and B inside the device lock, hangs at exit. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kElements = 64 };

enum mode { kMap, kUpdate, kAlloc, kRegions };
static const char* const kModeNames[] = {"map", "update", "alloc", "regions"};

static enum mode g_mode;
static int g_regions;
static int g_trap_region;
static int g_iterations;
static pthread_barrier_t g_start;
/* Thread B's buffer. */
static int g_b[kElements];

static void* thread_a(void* unused) {
  (void)unused;
  int a[kElements];
  pthread_barrier_wait(&g_start);
  for (int r = 0; r < g_regions; ++r) {
    for (int i = 0; i < kElements; ++i) a[i] = r + i;
    int trap = r == g_trap_region;
#pragma omp target teams num_teams(1) thread_limit(1) map(tofrom : a) firstprivate(trap)
    {
      if (trap) __builtin_trap();
      for (int i = 0; i < kElements; ++i) a[i] += 1;
    }
  }
  return NULL;
}

static void map_loop(void) {
  for (int n = 0; n < g_iterations; ++n) {
#pragma omp target enter data map(to : g_b)
#pragma omp target exit data map(release : g_b)
  }
}

static void update_loop(void) {
#pragma omp target enter data map(to : g_b)
  for (int n = 0; n < g_iterations; ++n) {
#pragma omp target update to(g_b)
#pragma omp target update from(g_b)
  }
#pragma omp target exit data map(release : g_b)
}

static void alloc_loop(void) {
  int device = omp_get_default_device();
  for (int n = 0; n < g_iterations; ++n) {
    void* p = omp_target_alloc(kElements * sizeof(int), device);
    if (p == NULL) {
      fprintf(stderr, "abort_while_mapping: omp_target_alloc returned NULL\n");
      exit(1);
    }
    omp_target_free(p, device);
  }
}

static void regions_loop(void) {
  for (int n = 0; n < g_iterations; ++n) {
#pragma omp target teams num_teams(1) thread_limit(1) map(tofrom : g_b)
    for (int i = 0; i < kElements; ++i) g_b[i] += 1;
  }
}

static void* thread_b(void* unused) {
  (void)unused;
  for (int i = 0; i < kElements; ++i) g_b[i] = i;
  pthread_barrier_wait(&g_start);
  switch (g_mode) {
    case kMap:
      map_loop();
      break;
    case kUpdate:
      update_loop();
      break;
    case kAlloc:
      alloc_loop();
      break;
    case kRegions:
      regions_loop();
      break;
  }
  return NULL;
}

static int parse(const char* s, int min, const char* what) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min || v > 100000000) {
    fprintf(stderr, "abort_while_mapping: bad %s: %s\n", what, s);
    exit(2);
  }
  return (int)v;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr,
            "usage: abort_while_mapping map|update|alloc|regions REGIONS TRAP_REGION "
            "ITERATIONS\n");
    return 2;
  }
  int found = 0;
  for (int m = kMap; m <= kRegions; ++m) {
    if (strcmp(argv[1], kModeNames[m]) == 0) {
      g_mode = (enum mode)m;
      found = 1;
    }
  }
  if (!found) {
    fprintf(stderr, "abort_while_mapping: bad MODE: %s\n", argv[1]);
    return 2;
  }
  g_regions = parse(argv[2], 0, "REGIONS");
  g_trap_region = parse(argv[3], -1, "TRAP_REGION");
  g_iterations = parse(argv[4], 0, "ITERATIONS");

  pthread_t a;
  pthread_t b;
  pthread_barrier_init(&g_start, NULL, 2);
  if (pthread_create(&a, NULL, thread_a, NULL) != 0 ||
      pthread_create(&b, NULL, thread_b, NULL) != 0) {
    fprintf(stderr, "abort_while_mapping: pthread_create failed\n");
    return 1;
  }
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_barrier_destroy(&g_start);
  printf(
      "abort_while_mapping: mode %s, A %d regions (trap at region %d), B %d iterations: "
      "both threads finished\n",
      kModeNames[g_mode], g_regions, g_trap_region, g_iterations);
  return 0;
}
