// One thread, one region that maps nothing and calls abort() on the device.
// On a GPU the kernel traps; GCC 12.2's plugin reports "cuCtxSynchronize
// error: unspecified launch failure (perhaps abort was called)" and exits 1,
// and its exit handler destroys the stacks lock the fatal error left held
// (pthread_mutex_destroy fails with EBUSY): no hang with one thread.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int trap = 1;
#pragma omp target firstprivate(trap)
  {
    if (trap) abort();
  }
  puts("not reached: the region aborts");
  return 0;
}
