/* target_alloc_loop THREADS ITERATIONS LIVE BYTES

   THREADS pthreads start together (a barrier); each, ITERATIONS times,
   allocates LIVE blocks of BYTES bytes with omp_target_alloc and then frees
   them with omp_target_free. Every block must be non-NULL and must not
   overlap any other block live at the time, this thread's or another's: a
   table of live blocks, under a mutex of the program's own, is checked at
   each allocation and updated before each free.

   Prints one line and exits 0:
     target_alloc_loop: T threads x I iterations x L blocks of B bytes: ok
     (A allocations)
   exits 1 (after a line naming the first bad block) otherwise. */
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int g_threads;
static int g_iterations;
static int g_live;
static size_t g_bytes;
static pthread_barrier_t g_start;

/* Every live block of every thread: g_threads * g_live slots, NULL when free. */
static pthread_mutex_t g_table_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t* g_table;

static int g_failed;

static void fail(const char* what, uintptr_t p) {
  fprintf(stderr, "target_alloc_loop: %s: %#lx\n", what, (unsigned long)p);
  __atomic_store_n(&g_failed, 1, __ATOMIC_RELAXED);
}

/* Records `p` in `slot`; reports it if it overlaps a live block. */
static void add_live(int slot, uintptr_t p) {
  pthread_mutex_lock(&g_table_lock);
  for (int i = 0; i < g_threads * g_live; ++i) {
    uintptr_t q = g_table[i];
    if (q != 0 && p < q + g_bytes && q < p + g_bytes) fail("overlaps a live block", p);
  }
  g_table[slot] = p;
  pthread_mutex_unlock(&g_table_lock);
}

static void remove_live(int slot) {
  pthread_mutex_lock(&g_table_lock);
  g_table[slot] = 0;
  pthread_mutex_unlock(&g_table_lock);
}

static void* worker_main(void* arg) {
  int first_slot = (int)(intptr_t)arg * g_live;
  int device = omp_get_default_device();
  void** blocks = calloc(g_live, sizeof *blocks);
  pthread_barrier_wait(&g_start);
  for (int n = 0; n < g_iterations; ++n) {
    for (int i = 0; i < g_live; ++i) {
      blocks[i] = omp_target_alloc(g_bytes, device);
      if (blocks[i] == NULL) {
        fail("omp_target_alloc returned NULL", 0);
        continue;
      }
      add_live(first_slot + i, (uintptr_t)blocks[i]);
    }
    for (int i = 0; i < g_live; ++i) {
      if (blocks[i] == NULL) continue;
      remove_live(first_slot + i);
      omp_target_free(blocks[i], device);
    }
  }
  free(blocks);
  return NULL;
}

static long parse(const char* s, long min, long max, const char* what) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min || v > max) {
    fprintf(stderr, "target_alloc_loop: bad %s: %s\n", what, s);
    exit(2);
  }
  return v;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: target_alloc_loop THREADS ITERATIONS LIVE BYTES\n");
    return 2;
  }
  g_threads = (int)parse(argv[1], 1, 1024, "THREADS");
  g_iterations = (int)parse(argv[2], 0, 100000000, "ITERATIONS");
  g_live = (int)parse(argv[3], 1, 4096, "LIVE");
  g_bytes = (size_t)parse(argv[4], 1, 1L << 40, "BYTES");

  g_table = calloc((size_t)g_threads * g_live, sizeof *g_table);
  pthread_t* ids = calloc(g_threads, sizeof *ids);
  pthread_barrier_init(&g_start, NULL, g_threads);
  for (int t = 0; t < g_threads; ++t) {
    if (pthread_create(&ids[t], NULL, worker_main, (void*)(intptr_t)t) != 0) {
      fprintf(stderr, "target_alloc_loop: pthread_create failed\n");
      return 1;
    }
  }
  for (int t = 0; t < g_threads; ++t) pthread_join(ids[t], NULL);
  pthread_barrier_destroy(&g_start);

  printf("target_alloc_loop: %d threads x %d iterations x %d blocks of %zu bytes: ", g_threads,
         g_iterations, g_live, g_bytes);
  if (__atomic_load_n(&g_failed, __ATOMIC_RELAXED)) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok (%ld allocations)\n", (long)g_threads * g_iterations * g_live);
  return 0;
}
