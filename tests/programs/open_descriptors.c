/* open_descriptors

   A program must find only its own descriptors open: stdin, stdout and
   stderr, as when a shell starts it. It runs one target region, then lists
   /proc/self/fd and prints every other descriptor it finds, with what it
   names; it exits 1 if there is one. Under stackcheck exec the fork server's
   request and answer pipes, or a /dev/null left open, would show here - and a
   program (or a child it leaves running) could then write to them. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == NULL) {
    perror("open_descriptors: /proc/self/fd");
    return 2;
  }
  int extra = 0;
  for (struct dirent* e; (e = readdir(dir)) != NULL;) {
    const int fd = atoi(e->d_name);
    if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(dir)) continue;
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(path, target, sizeof target - 1);
    target[n < 0 ? 0 : n] = '\0';
    printf("open_descriptors: fd %d is open (%s)\n", fd, target);
    ++extra;
  }
  closedir(dir);
  printf("open_descriptors: %d inherited descriptors (x = %d)\n", extra, x);
  return extra == 0 && x == 1 ? 0 : 1;
}
