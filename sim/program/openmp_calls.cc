// The program's calls into libgomp's offloading entry points, interposed
// only to be written in the call log with the thread that made them: they
// are where a thread asks for the device, before libgomp takes its device
// lock, so a steered run on the real driver (hardware/observe, steering)
// holds a thread there rather than inside the lock. Not scheduling points:
// threads run one at a time between points, so a line's place in the log is
// already the interleaving's. The signatures are libgomp's (GCC 12,
// libgomp_g.h and omp.h).
#include "sim/program/openmp_calls.h"

#include <dlfcn.h>

#include <cstddef>

#include "absl/strings/str_cat.h"
#include "sim/program/entry_point.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(Real().dlsym(RTLD_NEXT, name));
}

thread_local std::size_t t_region_map_count = 0;

void Note(const char* name, int device) {
  if (Controlled() && HasTwin() && !OnSimulatorThread()) {
    LogProgramCall(CallRecord::Kind::kOpenmp, name, absl::StrCat("(device ", device, ")"));
  }
}

}  // namespace

std::size_t CurrentRegionMapCount() { return t_region_map_count; }

}  // namespace stackcheck::program

using stackcheck::program::Next;
using stackcheck::program::Note;

extern "C" {

STACKCHECK_ENTRY_POINT void GOMP_target_ext(int device, void (*fn)(void*), size_t mapnum,
                                            void** hostaddrs, size_t* sizes, unsigned short* kinds,
                                            unsigned int flags, void** depend, void** args) {
  using F = void (*)(int, void (*)(void*), size_t, void**, size_t*, unsigned short*, unsigned int,
                     void**, void**);
  static F next = Next<F>("GOMP_target_ext");
  Note("GOMP_target_ext", device);
  const std::size_t outer = stackcheck::program::t_region_map_count;
  stackcheck::program::t_region_map_count = mapnum;
  next(device, fn, mapnum, hostaddrs, sizes, kinds, flags, depend, args);
  stackcheck::program::t_region_map_count = outer;
}

STACKCHECK_ENTRY_POINT void GOMP_target_data_ext(int device, size_t mapnum, void** hostaddrs,
                                                 size_t* sizes, unsigned short* kinds) {
  using F = void (*)(int, size_t, void**, size_t*, unsigned short*);
  static F next = Next<F>("GOMP_target_data_ext");
  Note("GOMP_target_data_ext", device);
  next(device, mapnum, hostaddrs, sizes, kinds);
}

STACKCHECK_ENTRY_POINT void GOMP_target_update_ext(int device, size_t mapnum, void** hostaddrs,
                                                   size_t* sizes, unsigned short* kinds,
                                                   unsigned int flags, void** depend) {
  using F = void (*)(int, size_t, void**, size_t*, unsigned short*, unsigned int, void**);
  static F next = Next<F>("GOMP_target_update_ext");
  Note("GOMP_target_update_ext", device);
  next(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}

STACKCHECK_ENTRY_POINT void GOMP_target_enter_exit_data(int device, size_t mapnum, void** hostaddrs,
                                                        size_t* sizes, unsigned short* kinds,
                                                        unsigned int flags, void** depend) {
  using F = void (*)(int, size_t, void**, size_t*, unsigned short*, unsigned int, void**);
  static F next = Next<F>("GOMP_target_enter_exit_data");
  Note("GOMP_target_enter_exit_data", device);
  next(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}

STACKCHECK_ENTRY_POINT void* omp_target_alloc(size_t size, int device) {
  using F = void* (*)(size_t, int);
  static F next = Next<F>("omp_target_alloc");
  Note("omp_target_alloc", device);
  return next(size, device);
}

STACKCHECK_ENTRY_POINT void omp_target_free(void* pointer, int device) {
  using F = void (*)(void*, int);
  static F next = Next<F>("omp_target_free");
  Note("omp_target_free", device);
  next(pointer, device);
}

}  // extern "C"
