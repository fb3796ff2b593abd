/* spawn_child

   An OpenMP offload program that starts another process (system("true"))
   after one target region. The child inherits the preloaded driver library;
   under `stackcheck exec` it must run as an ordinary process, not as a second
   controlled execution. Prints the child's status; exits 0 when it is 0. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  const int status = system("true");
  printf("spawn_child: child status %d (x = %d)\n", status, x);
  return status == 0 ? 0 : 1;
}
