/* An OpenMP offload program for the simulated driver. Under the simulator a
   kernel is recorded, not executed, so the device copies of mapped data keep
   the bytes the host sent; the program checks exactly that:
   1. a target teams region maps `a` tofrom and doubles it on the device: after
      it, the host sees the values it sent (the copy back is the device's);
   2. `b` is mapped to the device, changed on the host, then read back with
      `target update from`: the host sees the old values again, which come
      from device memory, not from host memory. */
#include <omp.h>
#include <stdio.h>

#define N 256

static int a[N];
static int b[N];

int main(void) {
  for (int i = 0; i < N; ++i) a[i] = i;
  printf("devices: %d\n", omp_get_num_devices());

#pragma omp target teams distribute parallel for map(tofrom : a)
  for (int i = 0; i < N; ++i) a[i] = 2 * a[i] + 1;

  int same = 1;
  for (int i = 0; i < N; ++i) same &= a[i] == i;
  printf("tofrom region: host sees the bytes it sent: %s (a[1] = %d, a[255] = %d)\n",
         same ? "yes" : "no", a[1], a[255]);

  for (int i = 0; i < N; ++i) b[i] = 1000 + i;
#pragma omp target enter data map(to : b)
  for (int i = 0; i < N; ++i) b[i] = -1;
#pragma omp target update from(b)
  int restored = 1;
  for (int i = 0; i < N; ++i) restored &= b[i] == 1000 + i;
  printf("target update from: device bytes came back: %s (b[7] = %d)\n", restored ? "yes" : "no",
         b[7]);
#pragma omp target exit data map(release : b)

  return same && restored ? 0 : 1;
}
