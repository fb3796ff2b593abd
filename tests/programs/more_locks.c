/* more_locks MODE

   Correct programs with the locks beyond plain mutexes, after one target
   region in main, two threads each; under `stackcheck exec` none may give a
   finding:

     timedlock   one thread holds a mutex while the other takes it with
                 pthread_mutex_timedlock (a deadline 1 s away) in a loop that
                 retries on ETIMEDOUT: both orders end;
     rwlock      two readers each hold a read lock of one pthread_rwlock_t
                 and meet at a barrier before unlocking (possible only when
                 read locks are shared), then each takes the write lock and
                 counts, then main takes a timed read lock;
     spin        two threads add to a counter under a pthread_spinlock_t;
     sigmask     two threads block every signal (pthread_sigmask) and run
                 target regions at once, so that one waits for libgomp's
                 device lock held by the other.

   Exit status 0 when the program's checks hold; 2 for a bad MODE. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t g_rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t g_spin;
static pthread_barrier_t g_readers_met;
static const char* g_mode;
static int g_count;

static struct timespec in_one_second(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += 1;
  return t;
}

static void expect(int got, int want, const char* what) {
  if (got != want) {
    fprintf(stderr, "more_locks: %s returned %d, not %d\n", what, got, want);
    abort();
  }
}

static void timed_lock(void) {
  for (;;) {
    const struct timespec deadline = in_one_second();
    const int rc = pthread_mutex_timedlock(&g_mutex, &deadline);
    if (rc == 0) break;
    expect(rc, ETIMEDOUT, "pthread_mutex_timedlock");
  }
  ++g_count;
  expect(pthread_mutex_unlock(&g_mutex), 0, "pthread_mutex_unlock");
}

static void rw_lock(void) {
  expect(pthread_rwlock_rdlock(&g_rwlock), 0, "pthread_rwlock_rdlock");
  pthread_barrier_wait(&g_readers_met);
  expect(pthread_rwlock_unlock(&g_rwlock), 0, "pthread_rwlock_unlock");
  expect(pthread_rwlock_wrlock(&g_rwlock), 0, "pthread_rwlock_wrlock");
  const int seen = g_count;
  g_count = seen + 1;
  expect(pthread_rwlock_unlock(&g_rwlock), 0, "pthread_rwlock_unlock");
}

static void spin_lock(void) {
  for (int i = 0; i < 3; ++i) {
    expect(pthread_spin_lock(&g_spin), 0, "pthread_spin_lock");
    const int seen = g_count;
    g_count = seen + 1;
    expect(pthread_spin_unlock(&g_spin), 0, "pthread_spin_unlock");
  }
}

static void blocked_signals(void) {
  sigset_t all;
  sigfillset(&all);
  expect(pthread_sigmask(SIG_BLOCK, &all, NULL), 0, "pthread_sigmask");
  for (int i = 0; i < 2; ++i) {
    int x = 0;
#pragma omp target map(tofrom : x)
    x = 1;
    if (x != 1) abort();
  }
  __atomic_add_fetch(&g_count, 1, __ATOMIC_SEQ_CST);
}

static void* worker(void* unused) {
  (void)unused;
  if (strcmp(g_mode, "timedlock") == 0) timed_lock();
  if (strcmp(g_mode, "rwlock") == 0) rw_lock();
  if (strcmp(g_mode, "spin") == 0) spin_lock();
  if (strcmp(g_mode, "sigmask") == 0) blocked_signals();
  return NULL;
}

int main(int argc, char** argv) {
  static const char* const modes[] = {"timedlock", "rwlock", "spin", "sigmask"};
  int known = 0;
  for (size_t i = 0; argc == 2 && i < sizeof modes / sizeof modes[0]; ++i) {
    known |= strcmp(argv[1], modes[i]) == 0;
  }
  if (!known) {
    fprintf(stderr, "usage: more_locks timedlock|rwlock|spin|sigmask\n");
    return 2;
  }
  g_mode = argv[1];
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  pthread_spin_init(&g_spin, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&g_readers_met, NULL, 2);
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  const int want = strcmp(g_mode, "spin") == 0 ? 6 : 2;
  if (strcmp(g_mode, "rwlock") == 0) {
    const struct timespec deadline = in_one_second();
    expect(pthread_rwlock_timedrdlock(&g_rwlock, &deadline), 0, "pthread_rwlock_timedrdlock");
    expect(pthread_rwlock_unlock(&g_rwlock), 0, "pthread_rwlock_unlock");
  }
  pthread_barrier_destroy(&g_readers_met);
  pthread_spin_destroy(&g_spin);
  printf("more_locks %s: count %d (want %d), x = %d\n", g_mode, g_count, want, x);
  return g_count == want && x == 1 ? 0 : 1;
}
