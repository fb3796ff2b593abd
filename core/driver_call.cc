#include "core/driver_call.h"

namespace stackcheck {

absl::string_view DriverCallName(DriverCall call) {
  static constexpr absl::string_view kNames[kDriverCallCount] = {
      "cuInit",           "cuCtxCreate",         "cuCtxDestroy",
      "cuCtxSynchronize", "cuMemAlloc",          "cuMemFree",
      "cuMemGetInfo",     "cuMemAllocAsync",     "cuMemFreeAsync",
      "cuModuleLoadData", "cuModuleUnload",      "cuModuleGetFunction",
      "cuLaunchKernel",   "cuStreamCreate",      "cuStreamDestroy",
      "cuStreamSynchronize", "cuStreamQuery",    "cuStreamAddCallback",
      "cuLaunchHostFunc", "cuEventCreate",       "cuEventDestroy",
      "cuEventRecord",    "cuEventQuery",        "cuEventSynchronize",
      "cuStreamWaitEvent", "cuMemHostAlloc",     "cuMemFreeHost",
      "cuStreamWriteValue32", "cuMemcpyHtoD_v2",   "cuMemcpyDtoH_v2",
  };
  const auto index = static_cast<int>(call);
  if (index < 0 || index >= kDriverCallCount) return "cu<unknown>";
  return kNames[index];
}

}  // namespace stackcheck
