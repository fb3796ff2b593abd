#include "sim/driver_api.h"

namespace stackcheck::sim {

absl::string_view DriverApiName(DriverApi api) {
  static constexpr absl::string_view kNames[kDriverApiCount] = {
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
  const auto index = static_cast<int>(api);
  if (index < 0 || index >= kDriverApiCount) return "cu<unknown>";
  return kNames[index];
}

}  // namespace stackcheck::sim
