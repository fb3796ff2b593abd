/* two_exits MODE

   exit() twice, after one target region in main (so libgomp's exit handler,
   gomp_target_fini, is among the handlers), with four exit handlers of the
   program's own that each print the thread that ran it and sleep 50 ms:

     threads   main calls exit(0) while a second thread calls exit(3): C11
               (7.22.4.4) leaves this undefined; glibc 2.36 runs the
               handlers on both threads at once, so both "main" and
               "other" lines appear. What libgomp does when two threads
               meet fatal errors (gomp_vfatal). `stackcheck exec` reports
               no-concurrent-exit.
     handler   the last handler registered (the first to run) calls
               exit(4) on the exiting thread: glibc goes on with the
               handlers not yet run and ends with status 4. What
               gomp_target_fini does when closing a device fails. Not
               reported.

   Exit status: one of the two statuses (threads), 4 (handler), 2 for a bad
   MODE. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_t g_main;
static int g_exit_from_handler;

static void report(int handler) {
  fprintf(stderr, "two_exits: handler %d on %s\n", handler,
          pthread_equal(pthread_self(), g_main) ? "main" : "other");
  usleep(50000);
}

static void handler1(void) { report(1); }
static void handler2(void) { report(2); }
static void handler3(void) { report(3); }
static void handler4(void) {
  report(4);
  if (g_exit_from_handler) exit(4);
}

static void* other_thread(void* unused) {
  (void)unused;
  usleep(10000);
  exit(3);
}

int main(int argc, char** argv) {
  const char* mode = argc == 2 ? argv[1] : "";
  if (strcmp(mode, "threads") != 0 && strcmp(mode, "handler") != 0) {
    fprintf(stderr, "usage: two_exits threads|handler\n");
    return 2;
  }
  g_main = pthread_self();
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  atexit(handler1);
  atexit(handler2);
  atexit(handler3);
  atexit(handler4);
  if (strcmp(mode, "threads") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, other_thread, NULL) != 0) return 2;
  } else {
    g_exit_from_handler = 1;
  }
  fprintf(stderr, "two_exits %s: main exits (x = %d)\n", mode, x);
  exit(0);
}
