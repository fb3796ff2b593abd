/* threads_regions THREADS REGIONS NUM_TEAMS THREAD_LIMIT

   THREADS pthreads start together (a barrier), and each runs REGIONS
   `#pragma omp target teams` regions with num_teams(NUM_TEAMS) and
   thread_limit(THREAD_LIMIT) (both at least 1), each mapping a small array
   of its own tofrom. A correct program: nothing faults, and the threads share
   nothing but the device.

   Every element is incremented on the device. After a region the array holds
   either the incremented values (the kernel ran) or the values sent (a
   simulated device, whose kernels do not execute); which one is decided by a
   flag the region sets, so a mixed or wrong result is an error either way.

   Prints one line and exits 0:
     threads_regions: T threads x R regions, num_teams N, thread_limit L:
     ok (kernels executed: E of T*R)
   exits 1 (after a line saying what differed) otherwise. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kElements = 64 };

static int g_regions;
static int g_num_teams;
static int g_thread_limit;
static pthread_barrier_t g_start;

struct worker {
  int index;
  int executed; /* regions whose kernel ran */
  int failed;   /* regions whose result was neither outcome */
};

/* One region on `a`; returns whether the kernel ran (1), did not (0), or
   left a result that is neither (-1). */
static int run_region(int* a, int base) {
  for (int i = 0; i < kElements; ++i) a[i] = base + i;
  int ran = 0;
  int teams = g_num_teams;
  int limit = g_thread_limit;
#pragma omp target teams num_teams(teams) thread_limit(limit) map(tofrom : a [0:kElements], ran)
  {
#pragma omp distribute
    for (int i = 0; i < kElements; ++i) a[i] += 1;
    if (omp_get_team_num() == 0) ran = 1;
  }
  for (int i = 0; i < kElements; ++i) {
    if (a[i] != base + i + ran) return -1;
  }
  return ran;
}

static void* worker_main(void* arg) {
  struct worker* w = arg;
  int a[kElements];
  pthread_barrier_wait(&g_start);
  for (int r = 0; r < g_regions; ++r) {
    int outcome = run_region(a, 1000 * w->index + 100 * r);
    if (outcome < 0) {
      ++w->failed;
    } else {
      w->executed += outcome;
    }
  }
  return NULL;
}

static int parse(const char* s, int min, const char* what) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min || v > 1000000) {
    fprintf(stderr, "threads_regions: bad %s: %s\n", what, s);
    exit(2);
  }
  return (int)v;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: threads_regions THREADS REGIONS NUM_TEAMS THREAD_LIMIT\n");
    return 2;
  }
  int threads = parse(argv[1], 1, "THREADS");
  g_regions = parse(argv[2], 0, "REGIONS");
  g_num_teams = parse(argv[3], 1, "NUM_TEAMS");
  g_thread_limit = parse(argv[4], 1, "THREAD_LIMIT");

  struct worker* workers = calloc(threads, sizeof *workers);
  pthread_t* ids = calloc(threads, sizeof *ids);
  pthread_barrier_init(&g_start, NULL, threads);
  for (int t = 0; t < threads; ++t) {
    workers[t].index = t;
    if (pthread_create(&ids[t], NULL, worker_main, &workers[t]) != 0) {
      fprintf(stderr, "threads_regions: pthread_create failed\n");
      return 1;
    }
  }
  int executed = 0;
  int failed = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    executed += workers[t].executed;
    failed += workers[t].failed;
  }
  pthread_barrier_destroy(&g_start);

  int total = threads * g_regions;
  printf("threads_regions: %d threads x %d regions, num_teams %d, thread_limit %d: ", threads,
         g_regions, g_num_teams, g_thread_limit);
  if (failed > 0) {
    printf("FAILED (%d regions returned neither the values sent nor the kernel's)\n", failed);
    return 1;
  }
  printf("ok (kernels executed: %d of %d)\n", executed, total);
  return 0;
}
