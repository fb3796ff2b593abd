// Passes the driver a bad pointer after a region has loaded it: on a GPU
// the real libcuda faults; under stackcheck exec the simulated one does, and
// the fault is reported as one inside stackcheck's library, never as the
// program's own crash.
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  if (x != 1) return 3;
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == NULL) {
    puts("no driver loaded");
    return 2;
  }
  int (*get_version)(int*) = (int (*)(int*))dlsym(driver, "cuDriverGetVersion");
  return get_version((int*)8);  // not a valid address
}
