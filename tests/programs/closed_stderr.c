/* closed_stderr FILE

   A program that closes its standard error and opens FILE, which takes
   descriptor 2, then runs a region that calls abort() on the device: GCC
   12.2's plugin reports the launch failure there, into FILE, and exits 1.
   stackcheck exec's own report of the execution must not land in the
   program's file (it goes to the standard error exec gave the program).
   Exit status 1 (the device abort), as on a GPU. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  close(2);
  if (open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644) != 2) return 2;
  int flag = 1;
#pragma omp target map(to : flag)
  if (flag) abort();
  return 0;
}
