/* mutex_kinds MODE

   glibc's mutex types under `stackcheck exec`, after one target region in
   main, with two threads:

     recursive    each thread locks a recursive mutex (a static
                  PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP) twice, counts, and
                  unlocks twice: correct, no finding;
     errorcheck   an error-checking mutex (pthread_mutex_init with the type
                  in its attributes): the owner's relock returns EDEADLK, its
                  trylock EBUSY, another thread's unlock EPERM; the program
                  aborts on any other answer: no finding;
     normal       main relocks a normal mutex it holds: it waits for itself
                  for ever, a deadlock.

   Exit status 0 when every thread ends; 2 for a bad MODE. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t g_recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t g_errorcheck;
static pthread_mutex_t g_normal = PTHREAD_MUTEX_INITIALIZER;
static int g_count;

static void expect(int got, int want, const char* what) {
  if (got != want) {
    fprintf(stderr, "mutex_kinds: %s returned %d, not %d\n", what, got, want);
    abort();
  }
}

static void* recursive_worker(void* unused) {
  (void)unused;
  expect(pthread_mutex_lock(&g_recursive), 0, "lock");
  expect(pthread_mutex_lock(&g_recursive), 0, "relock of a recursive mutex");
  ++g_count;
  expect(pthread_mutex_unlock(&g_recursive), 0, "inner unlock");
  expect(pthread_mutex_unlock(&g_recursive), 0, "outer unlock");
  return NULL;
}

static void* stranger(void* unused) {
  (void)unused;
  expect(pthread_mutex_unlock(&g_errorcheck), EPERM, "unlock by a non-owner");
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc == 2 ? argv[1] : "";
  if (strcmp(mode, "recursive") != 0 && strcmp(mode, "errorcheck") != 0 &&
      strcmp(mode, "normal") != 0) {
    fprintf(stderr, "usage: mutex_kinds recursive|errorcheck|normal\n");
    return 2;
  }
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  if (strcmp(mode, "recursive") == 0) {
    pthread_t threads[2];
    for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, recursive_worker, NULL);
    for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
    expect(g_count, 2, "the count");
  } else if (strcmp(mode, "errorcheck") == 0) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&g_errorcheck, &attr);
    pthread_mutexattr_destroy(&attr);
    expect(pthread_mutex_lock(&g_errorcheck), 0, "lock");
    expect(pthread_mutex_lock(&g_errorcheck), EDEADLK, "relock of an error-checking mutex");
    expect(pthread_mutex_trylock(&g_errorcheck), EBUSY, "trylock by the owner");
    pthread_t t;
    pthread_create(&t, NULL, stranger, NULL);
    pthread_join(t, NULL);
    expect(pthread_mutex_unlock(&g_errorcheck), 0, "unlock by the owner");
    expect(pthread_mutex_unlock(&g_errorcheck), EPERM, "unlock of a free mutex");
  } else {
    pthread_mutex_lock(&g_normal);
    pthread_mutex_lock(&g_normal);
  }
  printf("mutex_kinds %s: every thread ended (x = %d)\n", mode, x);
  return 0;
}
