/* cond_wait MODE

   Two threads hand over one flag through a condition variable, after one
   target region in main, so that `stackcheck exec` explores the pthread
   condition-variable calls it interposes:

     signal         the consumer waits in a predicate loop (pthread_cond_wait),
                    the producer sets the flag and signals: correct, no finding;
     lost           the consumer waits once without checking the flag: when
                    the producer signals first the wake-up is lost, the
                    consumer waits forever and main's join with it: a deadlock;
     timed-woken    the consumer waits with pthread_cond_timedwait in a
                    predicate loop and aborts when a wait returns 0 (woken by
                    the signal): a crash exploration must reach;
     timed-expires  the same loop, but the producer sets the flag without
                    signalling: a wait that began before the flag was set ends
                    only when its deadline passes (ETIMEDOUT), and the program
                    ends correctly.

   Exit status 0 when the hand-over completes; 2 for a bad MODE. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_ready;
static const char* g_mode;

/* Waits for the flag with a deadline a second away; aborts when a wait
   returns 0 and abort_when_woken is set. */
static void wait_timed(int abort_when_woken) {
  while (!g_ready) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    const int rc = pthread_cond_timedwait(&g_cond, &g_mutex, &deadline);
    if (rc == 0 && abort_when_woken) abort();
    if (rc != 0 && rc != ETIMEDOUT) abort();
  }
}

static void* consumer(void* unused) {
  (void)unused;
  pthread_mutex_lock(&g_mutex);
  if (strcmp(g_mode, "lost") == 0) {
    pthread_cond_wait(&g_cond, &g_mutex);
  } else if (strcmp(g_mode, "timed-woken") == 0) {
    wait_timed(1);
  } else if (strcmp(g_mode, "timed-expires") == 0) {
    wait_timed(0);
  } else {
    while (!g_ready) pthread_cond_wait(&g_cond, &g_mutex);
  }
  pthread_mutex_unlock(&g_mutex);
  return NULL;
}

static void* producer(void* unused) {
  (void)unused;
  pthread_mutex_lock(&g_mutex);
  g_ready = 1;
  if (strcmp(g_mode, "timed-expires") != 0) pthread_cond_signal(&g_cond);
  pthread_mutex_unlock(&g_mutex);
  return NULL;
}

int main(int argc, char** argv) {
  static const char* const modes[] = {"signal", "lost", "timed-woken", "timed-expires"};
  int known = 0;
  for (size_t i = 0; argc == 2 && i < sizeof modes / sizeof modes[0]; ++i) {
    known |= strcmp(argv[1], modes[i]) == 0;
  }
  if (!known) {
    fprintf(stderr, "usage: cond_wait signal|lost|timed-woken|timed-expires\n");
    return 2;
  }
  g_mode = argv[1];
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, consumer, NULL);
  pthread_create(&threads[1], NULL, producer, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  printf("cond_wait %s: handed over (x = %d)\n", g_mode, x);
  return 0;
}
