/* stuck_outside

   A program stackcheck exec cannot see all of: after one target region, a
   second thread waits on a POSIX semaphore nobody posts (sem_wait sleeps in
   the C library's own futex, which exec does not interpose), and main joins
   it. exec must report the thread stuck outside every scheduling point
   (status 87 from the library, a "progress" finding), never hang. Do not run
   it without a timeout anywhere else: it never ends. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t g_never;

static void* waiter(void* unused) {
  (void)unused;
  sem_wait(&g_never);
  return NULL;
}

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  sem_init(&g_never, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  pthread_join(t, NULL);
  printf("stuck_outside: unreachable (x = %d)\n", x);
  return 0;
}
