/* busy_spin

   main allocates and frees device memory (omp_target_alloc/free, under
   libgomp's device lock) in a loop until a second thread, whose one target
   region runs meanwhile, sets a flag: a correct program with no sched_yield
   in its spin. A schedule that never preempts main starves the other thread
   for ever; `stackcheck exec` schedules fairly (a thread that has taken many
   steps in a row gives way, sim/libcuda/README.md), so depth-first search
   within a preemption bound ends clean, never STUCK.

   Exit status 0; prints one line. */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int g_done;

static void* region(void* unused) {
  (void)unused;
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  atomic_store(&g_done, x);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, region, NULL);
  long spins = 0;
  while (!atomic_load(&g_done)) {
    void* p = omp_target_alloc(64, omp_get_default_device());
    omp_target_free(p, omp_get_default_device());
    ++spins;
  }
  pthread_join(t, NULL);
  printf("busy_spin: the flag was seen (%s)\n", spins > 0 ? "after spinning" : "at once");
  return 0;
}
