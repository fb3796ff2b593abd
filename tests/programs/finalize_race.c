/* finalize_race REGIONS [GIB]

   One thread's fatal error finalizes the device while another thread keeps
   running target regions: libgomp's finalized-device window, with a context
   the error did not lose.

   After one region in main (the device is initialised), a second thread runs
   REGIONS regions, each mapping a small array, while main maps GIB GiB
   (default 1024) with map(alloc:), more than any GPU holds: cuMemAlloc fails
   inside gomp_map_vars, which raises "device memory allocation fail" and
   exits. The exit handler gomp_target_fini finalizes the device on a healthy
   context: nvptx_close_device succeeds and GOMP_OFFLOAD_fini_device frees
   the plugin's device table. A region of the second thread that looked the
   device up before that (resolve_device) and maps after it finds the device
   finalized in gomp_map_vars, and GCC 12.2's GOMP_target_ext calls the
   plugin's run function anyway: GOMP_OFFLOAD_run reads ptx_devices[ord] from
   the freed table (SIGSEGV). With gcc/patches/0003 nothing is finalized
   after a fatal error.

   The map(alloc:) of main's array touches no host memory: the host range is
   a name for the device copy only.

   Exit status: 1 with libgomp's message (the fatal error), what the second
   thread met otherwise (SIGSEGV: 139 from a shell), 2 for bad arguments. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int g_small[64];
static long g_regions;

static void* run_regions(void* unused) {
  (void)unused;
  for (long i = 0; i < g_regions; ++i) {
#pragma omp target map(tofrom : g_small [0:64])
    { g_small[i % 64] += 1; }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: finalize_race REGIONS [GIB]\n");
    return 2;
  }
  char* end = NULL;
  g_regions = strtol(argv[1], &end, 10);
  unsigned long gib = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
  if (*end != '\0' || g_regions < 1 || gib < 1 || gib > (1ul << 20)) {
    fprintf(stderr, "finalize_race: REGIONS must be >= 1 and GIB 1..1048576\n");
    return 2;
  }
#pragma omp target map(tofrom : g_small [0:1])
  { g_small[0] = 0; }
  pthread_t other;
  if (pthread_create(&other, NULL, run_regions, NULL) != 0) return 2;
  /* A name for the device copy: map(alloc:) reads and writes no host byte. */
  static char host_name[1];
  char* huge = host_name;
  unsigned long bytes = gib << 30;
#pragma omp target map(alloc : huge [0:bytes])
  { huge[0] = 1; }
  pthread_join(other, NULL);
  printf("finalize_race: the %lu GiB mapping did not fail\n", gib);
  return 0;
}
