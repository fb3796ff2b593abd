/* fork_wait MODE

   An OpenMP offload program that forks after a target region and waits for
   its child (waitpid):

     exit     the child ends with exit(3): its atexit handlers run, libgomp's
              among them, in a process whose CUDA context is its parent's;
     _exit    the child ends with _exit(3);
     region   the child runs a target region of its own, then exit(3);
     orphan   the child sleeps for 10 minutes and the parent ends at once,
              without waiting: whoever runs the program must not leave the
              child behind.

   The parent prints how its child ended (orphan: its pid); exit status 0 when the child
   exited with 3 (the program's correct outcome for exit and _exit; the
   real driver decides what region does), 1 otherwise, 2 for a bad MODE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "exit") != 0 && strcmp(argv[1], "_exit") != 0 &&
                    strcmp(argv[1], "region") != 0 && strcmp(argv[1], "orphan") != 0)) {
    fprintf(stderr, "usage: fork_wait exit|_exit|region|orphan\n");
    return 2;
  }
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  fflush(NULL);
  const pid_t child = fork();
  if (child < 0) {
    perror("fork_wait: fork");
    return 1;
  }
  if (child == 0) {
    if (strcmp(argv[1], "_exit") == 0) _exit(3);
    if (strcmp(argv[1], "orphan") == 0) {
      sleep(600);
      _exit(0);
    }
    if (strcmp(argv[1], "region") == 0) {
      int y = 0;
#pragma omp target map(tofrom : y)
      y = 1;
      printf("fork_wait child: region ran, y = %d\n", y);
    }
    exit(3);
  }
  if (strcmp(argv[1], "orphan") == 0) {
    printf("fork_wait orphan: child %d left running\n", (int)child);
    return 0;
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) {
    perror("fork_wait: waitpid");
    return 1;
  }
  if (WIFEXITED(status)) {
    printf("fork_wait %s: child exited %d (x = %d)\n", argv[1], WEXITSTATUS(status), x);
  } else {
    printf("fork_wait %s: child killed by signal %d (x = %d)\n", argv[1],
           WIFSIGNALED(status) ? WTERMSIG(status) : -1, x);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 3 ? 0 : 1;
}
