#include "core/driver_call.h"

namespace stackcheck {
namespace {

struct Names {
  absl::string_view name;    // as libgomp's messages print it
  absl::string_view symbol;  // the libcuda.so.1 export
};

// In DriverCall's order.
constexpr Names kNames[kDriverCallCount] = {
    {"cuInit", "cuInit"},
    {"cuCtxCreate", "cuCtxCreate_v2"},
    {"cuCtxDestroy", "cuCtxDestroy_v2"},
    {"cuCtxSynchronize", "cuCtxSynchronize"},
    {"cuMemAlloc", "cuMemAlloc_v2"},
    {"cuMemFree", "cuMemFree_v2"},
    {"cuMemGetInfo", "cuMemGetInfo_v2"},
    {"cuMemAllocAsync", "cuMemAllocAsync"},
    {"cuMemFreeAsync", "cuMemFreeAsync"},
    {"cuModuleLoadData", "cuModuleLoadData"},
    {"cuModuleUnload", "cuModuleUnload"},
    {"cuModuleGetFunction", "cuModuleGetFunction"},
    {"cuLaunchKernel", "cuLaunchKernel"},
    {"cuStreamCreate", "cuStreamCreate"},
    {"cuStreamDestroy", "cuStreamDestroy_v2"},
    {"cuStreamSynchronize", "cuStreamSynchronize"},
    {"cuStreamQuery", "cuStreamQuery"},
    {"cuStreamAddCallback", "cuStreamAddCallback"},
    {"cuLaunchHostFunc", "cuLaunchHostFunc"},
    {"cuEventCreate", "cuEventCreate"},
    {"cuEventDestroy", "cuEventDestroy_v2"},
    {"cuEventRecord", "cuEventRecord"},
    {"cuEventQuery", "cuEventQuery"},
    {"cuEventSynchronize", "cuEventSynchronize"},
    {"cuStreamWaitEvent", "cuStreamWaitEvent"},
    {"cuMemHostAlloc", "cuMemHostAlloc"},
    {"cuMemFreeHost", "cuMemFreeHost"},
    {"cuStreamWriteValue32", "cuStreamWriteValue32_v2"},
    {"cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2"},
    {"cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2"},
};

const Names* Find(DriverCall call) {
  const auto index = static_cast<int>(call);
  return index >= 0 && index < kDriverCallCount ? &kNames[index] : nullptr;
}

}  // namespace

absl::string_view DriverCallName(DriverCall call) {
  const Names* names = Find(call);
  return names ? names->name : "cu<unknown>";
}

absl::string_view DriverCallSymbol(DriverCall call) {
  const Names* names = Find(call);
  return names ? names->symbol : "cu<unknown>";
}

}  // namespace stackcheck
