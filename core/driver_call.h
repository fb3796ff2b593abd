// The driver call behind each core/device.h method, its name and its
// libcuda.so.1 export: the one table both backends name calls from. The
// simulator logs a call by its value (in a kDriverCall event, so the
// numbering is part of every trace digest); the CUDA backend names the call in
// its ledger and activity log and calls the export named here
// (real/cuda_entry_points_test checks it against cuda.h); the simulated
// libcuda serves it under that export (sim/libcuda/entry_points.tsv, checked
// by entry_points_table_test); the policies name it in libgomp's messages.
#ifndef STACKCHECK_CORE_DRIVER_CALL_H_
#define STACKCHECK_CORE_DRIVER_CALL_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace stackcheck {

// One value per core/device.h method, in the header's order, but for the
// ones appended last. Append new calls; never renumber.
enum class DriverCall : std::uint8_t {
  kInit,
  kCtxCreate,
  kCtxDestroy,
  kCtxSynchronize,
  kMemAlloc,
  kMemFree,
  kMemGetInfo,
  kMemAllocAsync,
  kMemFreeAsync,
  kModuleLoad,
  kModuleUnload,
  kModuleGetFunction,
  kLaunchKernel,
  kStreamCreate,
  kStreamDestroy,
  kStreamSynchronize,
  kStreamQuery,
  kStreamAddCallback,
  kLaunchHostFunc,
  kEventCreate,
  kEventDestroy,
  kEventRecord,
  kEventQuery,
  kEventSynchronize,
  kStreamWaitEvent,
  // Appended, not in header order, so that the trace digests of executions
  // that do not use them stay what they were.
  kMemHostAlloc,  // HostWordAlloc
  kMemFreeHost,   // HostWordFree
  kStreamWriteValue32,
  kMemcpyHtoD,
  kMemcpyDtoH,
};
inline constexpr int kDriverCallCount = 30;

// The name of the driver call the method stands for in libgomp's plugin,
// e.g. "cuMemFree", "cuCtxCreate" (the CUDA backend retains the primary
// context instead); "cu<unknown>" for a value outside the enum.
absl::string_view DriverCallName(DriverCall call);

// The versioned libcuda.so.1 export the call is made through, as cuda.h binds
// the name ("cuMemAlloc_v2", "cuStreamWriteValue32_v2") and as GCC 12.2's
// plugin resolves it ("cuCtxCreate_v2"); "cu<unknown>" outside the enum.
absl::string_view DriverCallSymbol(DriverCall call);

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_DRIVER_CALL_H_
