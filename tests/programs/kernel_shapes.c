// Every shape of launch libgomp makes, each checking what its kernel
// computed: a region that maps nothing (its variable table is NULL), one
// array mapped tofrom, firstprivate scalars only, a device pointer
// (is_device_ptr), a deferred region (nowait), a `declare target` variable
// moved by `target update`, a combined construct with a reduction, and the
// teams and threads the launch's geometry gives. On a
// GPU and under stackcheck exec alike it prints one line and exits 0; a
// kernel that did not run (or ran on the wrong bytes) makes it exit 1.
#include <omp.h>
#include <stdio.h>

enum { kN = 256 };

static int counter = 1;
#pragma omp declare target to(counter)

static int failures;

static void Check(const char* shape, long got, long want) {
  if (got != want) {
    printf("%s: got %ld, want %ld\n", shape, got, want);
    ++failures;
  }
}

int main(void) {
// No map: nothing is passed.
#pragma omp target
  {}

  // One array, tofrom.
  int a[kN];
  for (int i = 0; i < kN; ++i) a[i] = i;
#pragma omp target map(tofrom : a)
  for (int i = 0; i < kN; ++i) a[i] *= 3;
  long sum = 0;
  for (int i = 0; i < kN; ++i) sum += a[i];
  Check("map tofrom", sum, 3L * kN * (kN - 1) / 2);

  // Firstprivate scalars only; the result comes back through `from`.
  int x = 7, y = 5, product = 0;
#pragma omp target firstprivate(x, y) map(from : product)
  product = x * y;
  Check("firstprivate", product, 35);

  // A device pointer the program allocated.
  const int device = omp_get_default_device();
  int* d = (int*)omp_target_alloc(kN * sizeof(int), device);
  if (d == NULL) {
    puts("omp_target_alloc failed");
    return 1;
  }
#pragma omp target is_device_ptr(d)
  for (int i = 0; i < kN; ++i) d[i] = i + 1;
  int back[kN];
  omp_target_memcpy(back, d, sizeof back, 0, 0, omp_get_initial_device(), device);
  omp_target_free(d, device);
  Check("is_device_ptr", back[kN - 1], kN);

  // A deferred region.
  int later = 0;
#pragma omp target map(tofrom : later) nowait
  later = 42;
#pragma omp taskwait
  Check("nowait", later, 42);

  // A declare-target variable, updated both ways.
  counter = 5;
#pragma omp target update to(counter)
#pragma omp target
  counter += 10;
#pragma omp target update from(counter)
  Check("declare target", counter, 15);

  // Teams, threads and a reduction.
  long total = 0;
#pragma omp target teams distribute parallel for reduction(+ : total) map(tofrom : total)
  for (int i = 0; i < 10000; ++i) total += i;
  Check("teams reduction", total, 10000L * 9999 / 2);

  // The launch's geometry: num_teams(4) gives four teams, numbered 0-3; an
  // unnumbered teams construct as many as the grid has blocks, each seen
  // once; an unnumbered parallel region one thread per warp of a block.
  // (Native runs fall back to the host: one team, the host's threads.)
  int teams4 = 0, seen4[4] = {0, 0, 0, 0};
#pragma omp target teams num_teams(4) map(tofrom : teams4, seen4)
  {
    if (omp_get_team_num() == 0) teams4 = omp_get_num_teams();
    if (omp_get_team_num() < 4) seen4[omp_get_team_num()] += 1;
  }
  Check("num_teams(4)", teams4, 4);
  Check("num_teams(4) team numbers", seen4[0] + seen4[1] + seen4[2] + seen4[3], 4);
  enum { kMaxTeams = 4096 };
  static int seen[kMaxTeams];
  int teams = 0, on_device = 0, threads = 0;
#pragma omp target map(from : on_device)
  on_device = !omp_is_initial_device();
#pragma omp target teams map(tofrom : teams, seen)
  {
    if (omp_get_team_num() == 0) teams = omp_get_num_teams();
    if (omp_get_team_num() < kMaxTeams) seen[omp_get_team_num()] += 1;
  }
  int distinct = 0;
  for (int t = 0; t < kMaxTeams; ++t) distinct += seen[t] == 1;
  Check("teams: each team once", distinct, teams < kMaxTeams ? teams : kMaxTeams);
  if (on_device) Check("teams: more than one on a device", teams > 1, 1);
#pragma omp target parallel map(tofrom : threads)
  {
    if (omp_get_thread_num() == 0) threads = omp_get_num_threads();
  }
  if (on_device) Check("parallel: one thread per warp (8 by default)", threads, 8);

  printf("kernel_shapes: %d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
