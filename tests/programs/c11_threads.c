/* c11_threads MODE

   C11 threads (threads.h) under `stackcheck exec`, after one target region in
   main. glibc builds thrd_*, mtx_* and cnd_* on its pthread objects but calls
   its internal pthread functions, so they must be controlled on their own:

     handover  two workers (thrd_create) wait on a cnd_t under an mtx_t until
               main sets a flag, add their share under a recursive mtx_t
               (locked twice), and return their index; main joins both
               (thrd_join) and checks the sum and each result: correct, no
               finding;
     lost      a worker waits once, without a predicate, for main's
               cnd_signal, which can come before the wait: the lost wake-up
               deadlocks in some schedules.

   Exit status 0 when every check holds, 1 (after a line) when one does not,
   2 for a bad MODE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static mtx_t g_lock;
static mtx_t g_sum_lock; /* recursive */
static cnd_t g_go;
static int g_started;
static int g_sum;
static once_flag g_once = ONCE_FLAG_INIT;
static int g_once_runs;

static void count_once(void) { ++g_once_runs; }

static int handover_worker(void* arg) {
  const int index = *(const int*)arg;
  call_once(&g_once, count_once);
  mtx_lock(&g_lock);
  while (!g_started) cnd_wait(&g_go, &g_lock);
  mtx_unlock(&g_lock);
  mtx_lock(&g_sum_lock);
  mtx_lock(&g_sum_lock);
  g_sum += index + 1;
  mtx_unlock(&g_sum_lock);
  mtx_unlock(&g_sum_lock);
  return index + 10;
}

static int lost_worker(void* arg) {
  (void)arg;
  mtx_lock(&g_lock);
  cnd_wait(&g_go, &g_lock); /* no predicate: the signal may have come */
  mtx_unlock(&g_lock);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "handover") != 0 && strcmp(argv[1], "lost") != 0)) {
    fprintf(stderr, "usage: c11_threads handover|lost\n");
    return 2;
  }
  int x = 1;
#pragma omp target map(tofrom : x)
  x += 1;
  if (mtx_init(&g_lock, mtx_plain) != thrd_success ||
      mtx_init(&g_sum_lock, mtx_plain | mtx_recursive) != thrd_success ||
      cnd_init(&g_go) != thrd_success) {
    fprintf(stderr, "c11_threads: init failed\n");
    return 1;
  }
  const int lost = strcmp(argv[1], "lost") == 0;
  thrd_t workers[2];
  int index[2] = {0, 1};
  const int count = lost ? 1 : 2;
  for (int i = 0; i < count; ++i) {
    if (thrd_create(&workers[i], lost ? lost_worker : handover_worker, &index[i]) != thrd_success) {
      fprintf(stderr, "c11_threads: thrd_create failed\n");
      return 1;
    }
  }
  mtx_lock(&g_lock);
  g_started = 1;
  if (lost) {
    cnd_signal(&g_go);
  } else {
    cnd_broadcast(&g_go);
  }
  mtx_unlock(&g_lock);
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    int result = -1;
    if (thrd_join(workers[i], &result) != thrd_success || (!lost && result != i + 10)) {
      fprintf(stderr, "c11_threads: worker %d returned %d\n", i, result);
      failed = 1;
    }
  }
  if (!lost && (g_sum != 3 || g_once_runs != 1)) {
    fprintf(stderr, "c11_threads: sum %d, once ran %d times\n", g_sum, g_once_runs);
    failed = 1;
  }
  mtx_destroy(&g_lock);
  mtx_destroy(&g_sum_lock);
  cnd_destroy(&g_go);
  printf("c11_threads %s: %s (x = %d)\n", argv[1], failed ? "FAILED" : "ok", x);
  return failed;
}
