/* yield_spin

   One thread spins on sched_yield until another sets a flag, after one
   target region in main: a correct program, which `stackcheck exec` must
   explore clean with every strategy, depth-first within a preemption bound
   too (a yield lets the other threads run first; see sim/libcuda/README.md).

   Exit status 0. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int g_flag;

static void* spinner(void* unused) {
  (void)unused;
  while (!atomic_load(&g_flag)) sched_yield();
  return NULL;
}

static void* setter(void* unused) {
  (void)unused;
  atomic_store(&g_flag, 1);
  return NULL;
}

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, spinner, NULL);
  pthread_create(&threads[1], NULL, setter, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  printf("yield_spin: the flag was seen (x = %d)\n", x);
  return 0;
}
