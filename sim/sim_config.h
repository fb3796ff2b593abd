// The simulator's modes (where docs/cuda-semantics.md says "may") and the
// device's parameters. One value configures a Simulator; it may change
// between executions.
#ifndef STACKCHECK_SIM_SIM_CONFIG_H_
#define STACKCHECK_SIM_SIM_CONFIG_H_

#include <cstdint>

#include "core/cu_result.h"
#include "core/scenario.h"

namespace stackcheck::sim {

// The one definition of the device's modes for behaviour the documentation
// leaves open (a correct policy must pass under every combination) and of the
// execution's bound. The defaults are the device as observed on the H200;
// properties::Case starts from its own named choice (properties/case.h).
struct SimModes {
  // SEM-11: cuMemFree waits until every stream is idle (observed on H200), or
  // frees at once (what the documentation also allows).
  bool free_waits_for_streams = true;
  // SEM-07: one driver thread runs every callback and host function in
  // dispatch order (observed), or each runs on its own, concurrently.
  bool serial_callback_thread = true;
  // SEM-04: the sticky error a trapping kernel leaves.
  CuResult trap_code = CuResult::kLaunchFailed;
  // cuMemAlloc sizes round up to this (SEM-12); 0 or 1 = no rounding.
  std::uint64_t alloc_granularity = 2 * kMiB;
  // Progress: an execution longer than this many scheduling steps is reported
  // as a "progress" violation (livelock, spinning).
  std::uint64_t step_bound = 100000;

  friend bool operator==(const SimModes& a, const SimModes& b) {
    return a.free_waits_for_streams == b.free_waits_for_streams &&
           a.serial_callback_thread == b.serial_callback_thread && a.trap_code == b.trap_code &&
           a.alloc_granularity == b.alloc_granularity && a.step_bound == b.step_bound;
  }
};

struct SimConfig {
  SimModes modes;
  std::uint64_t device_capacity = 1024 * kMiB;
  // The first device address (each actor allocates from a TiB range above
  // it). sim/libcuda maps blocks at their addresses, which must then be free
  // in the program's address space.
  std::uint64_t first_device_address = std::uint64_t{1} << 32;
  // Fault plan: the k-th (1-based) cuMemAlloc fails with OUT_OF_MEMORY; 0 = never.
  std::uint32_t alloc_failure_at_call = 0;
  // The k-th (1-based) cuLaunchKernel that passes its checks is rejected
  // with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, not sticky (SEM-03); 0 = never.
  std::uint32_t launch_failure_at_call = 0;
  // Footprints only: every allocation writes the one memory ledger, as if
  // allocations never commuted. Off, an allocation writes its own actor's
  // allocator object while the device's memory is ample, which the device
  // checks (SimDevice::AllocFootprint); Explore turns it on when it is not.
  bool exact_memory_ledger = false;
  // An exit's process ends once no other actor can move
  // (Scheduler::AwaitRest), which loses no verdict and spares a search every
  // earlier end. Set, it ends right after its handlers, as a real process
  // may, and a search tries every point of the other threads to cut them at:
  // for the tests that check that the longest run shows what every cut does.
  bool exit_cuts_every_step = false;
  // Footprints only: no kernel of the execution can trap (no aborting
  // region, no kernel body that decides). Only then is a launch harmless
  // work to a read-only wait that came before it (kEnqueuesHarmlessWork):
  // with a trap to come, the launch run first keeps the wait waiting, and a
  // trap that then wakes it makes it fail.
  bool kernels_never_trap = false;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_SIM_CONFIG_H_
