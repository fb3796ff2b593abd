/* big_teams NUM_TEAMS THREAD_LIMIT [LEAVE_MIB]

   One `#pragma omp target teams num_teams(NUM_TEAMS)
   thread_limit(THREAD_LIMIT)` region. GCC 12's nvptx plugin launches
   min(NUM_TEAMS, what the device's registers hold) blocks of THREAD_LIMIT
   warps (at most 32) and, before the launch, takes a stacks block of
   128 KiB per warp of the whole grid (nvptx_stacks_acquire).

   With LEAVE_MIB (0..1024), the program first fills device memory with
   omp_target_alloc: 1 GiB blocks until one fails, then gives one back and
   fills again with 1 MiB blocks until one fails, then frees LEAVE_MIB of
   those, so that about LEAVE_MIB MiB are free when the region starts (libgomp
   prints each failed allocation: "nvptx_alloc error: out of memory"). If the
   stacks block does not fit, the plugin's allocation fails inside
   GOMP_OFFLOAD_run, a fatal error: libgomp prints "cuMemAlloc error: out of
   memory" and the process exits with status 1 after the first line below.

   Prints, before the region:
     big_teams: num_teams N, thread_limit L, free device memory: F
   where F is "not limited" or "about M MiB", and after it (exit 0):
     big_teams: region ran: device saw T teams of W threads
   or, where kernels do not execute (a simulated device):
     big_teams: region ran: kernel not executed */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMiB = 1 << 20, kGiB = 1 << 30 };

/* The blocks holding device memory. */
static void** g_blocks;
static int g_count;
static int g_capacity;

static void hold(void* p) {
  if (g_count == g_capacity) {
    g_capacity = g_capacity ? 2 * g_capacity : 256;
    g_blocks = realloc(g_blocks, g_capacity * sizeof *g_blocks);
    if (g_blocks == NULL) {
      fprintf(stderr, "big_teams: out of host memory\n");
      exit(1);
    }
  }
  g_blocks[g_count++] = p;
}

static void release_last(int device) { omp_target_free(g_blocks[--g_count], device); }

/* Allocates blocks of `bytes` until one fails; returns how many it got. */
static int fill(size_t bytes, int device) {
  int got = 0;
  for (void* p; (p = omp_target_alloc(bytes, device)) != NULL; ++got) hold(p);
  return got;
}

/* Leaves about `leave_mib` MiB of device memory free. */
static void fill_device(int leave_mib, int device) {
  if (fill(kGiB, device) > 0) release_last(device);
  int mib_blocks = fill(kMiB, device);
  for (int i = 0; i < leave_mib && i < mib_blocks; ++i) release_last(device);
}

static int parse(const char* s, int min, int max, const char* what) {
  char* end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min || v > max) {
    fprintf(stderr, "big_teams: bad %s: %s\n", what, s);
    exit(2);
  }
  return (int)v;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: big_teams NUM_TEAMS THREAD_LIMIT [LEAVE_MIB]\n");
    return 2;
  }
  int num_teams = parse(argv[1], 1, 1 << 30, "NUM_TEAMS");
  int thread_limit = parse(argv[2], 1, 1 << 30, "THREAD_LIMIT");
  int leave_mib = argc == 4 ? parse(argv[3], 0, 1024, "LEAVE_MIB") : -1;
  int device = omp_get_default_device();

  if (leave_mib >= 0) fill_device(leave_mib, device);
  printf("big_teams: num_teams %d, thread_limit %d, free device memory: ", num_teams, thread_limit);
  if (leave_mib >= 0) {
    printf("about %d MiB\n", leave_mib);
  } else {
    printf("not limited\n");
  }
  fflush(stdout);

  int seen[2] = {0, 0}; /* teams, and threads of team 0, as the device counts them */
#pragma omp target teams num_teams(num_teams) thread_limit(thread_limit) map(tofrom : seen)
  {
    if (omp_get_team_num() == 0) {
#pragma omp parallel
      {
        if (omp_get_thread_num() == 0) {
          seen[0] = omp_get_num_teams();
          seen[1] = omp_get_num_threads();
        }
      }
    }
  }

  while (g_count > 0) release_last(device);
  free(g_blocks);
  if (seen[0] == 0) {
    printf("big_teams: region ran: kernel not executed\n");
  } else {
    printf("big_teams: region ran: device saw %d teams of %d threads\n", seen[0], seen[1]);
  }
  return 0;
}
