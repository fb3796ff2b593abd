// A kernel's code, executed. GCC compiles every offloaded region twice, for
// the device and as a host function that libgomp calls when it falls back to
// the host (gomp_target_fallback: `fn (hostaddrs)`, after applying the
// region's thread limit from the launch's target arguments); the kernel
// receives the same table with device addresses (GOMP_OFFLOAD_run's
// `tgt_vars`). Since this library keeps device memory at the device addresses
// (sim/libcuda/entry_kernels.cc), the host function called with the device table computes what
// the kernel computes, on device memory: device results reach the host
// through the copies libgomp makes, as they would from a GPU. The call goes
// through libgomp's own fallback (GOMP_target_ext on the host-fallback device
// with nothing to map), so the thread limit and the thread state are set up
// exactly as libgomp sets them up for a host region.
//
// The function runs on a fresh OS thread that is no program thread, as the
// simulator's GPU actor starts the kernel (a scheduling point; every program
// thread is stopped at one meanwhile): its calls (libgomp's futexes, pthread)
// are the real ones, not scheduling points. Inside it, the device queries
// answer as on the device (omp_is_initial_device() is 0, omp_get_device_num()
// the device's), and the launch's geometry rules as on the device: a
// `teams` construct gets the teams its blocks give (GCC's nvptx GOMP_teams4,
// the blocks run one after another), a `parallel` construct as many threads
// as a block has warps (at most), as GCC's nvptx libgomp sets them. A device-side abort() (GCC's
// nvptx abort is a trap), an assertion, a trap instruction or a memory fault ends the kernel there:
// it traps (SEM-04).
#ifndef STACKCHECK_SIM_PROGRAM_KERNEL_BODY_H_
#define STACKCHECK_SIM_PROGRAM_KERNEL_BODY_H_

#include <string>
#include <vector>

#include "sim/program/offload_images.h"

namespace stackcheck::program {

struct KernelOutcome {
  bool trapped = false;
  std::string why;  // what trapped: "abort() in device code", "SIGSEGV", ...
};

struct KernelLaunch {
  std::string kernel;  // its name, for reports
  HostFunction function = nullptr;
  void* vars = nullptr;           // the device table (NULL: the region maps nothing)
  std::size_t table_entries = 0;  // the table's length, where known (else 0)
  // GOMP_OFFLOAD_run's target arguments, copied at the launch (ends with NULL).
  std::vector<void*> target_arguments;
  // The launch's geometry as GCC's nvptx libgomp reads it: the blocks of the
  // grid are the teams (nctaid.x), the warps of a block the threads (ntid.y).
  unsigned teams = 1;
  unsigned warps = 1;
};

// Copies a NULL-terminated target-argument array as libgomp lays it out (an
// id word, and a value word after it where the id says so).
std::vector<void*> CopyTargetArguments(void* const* arguments);

// Runs the launch's code as the kernel. With a watchdog (WatchdogSeconds()),
// a kernel that runs longer ends the execution as stuck.
KernelOutcome RunKernelBody(const KernelLaunch& launch);

// Whether the calling thread runs a kernel's code.
bool InKernelBody();
// The launch the calling thread runs the code of. Only where InKernelBody().
const KernelLaunch& KernelGeometry();

// Ends the calling kernel's code there: the kernel traps. Only where
// InKernelBody().
[[noreturn]] void EndKernelWithTrap(const char* why);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_KERNEL_BODY_H_
