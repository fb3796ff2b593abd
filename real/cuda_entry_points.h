// The CUDA Driver API, loaded at run time.
//
// The binary never links libcuda: it dlopen()s "libcuda.so.1", takes
// cuGetProcAddress_v2 with dlsym, and asks it for every other entry point at
// the CUDA version our header describes. So one binary starts everywhere; on a
// machine without a driver, asking for the GPU yields one clear status instead
// of the dynamic loader's exit 127.
#ifndef STACKCHECK_REAL_CUDA_ENTRY_POINTS_H_
#define STACKCHECK_REAL_CUDA_ENTRY_POINTS_H_

#include <cuda.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::real {

// Every driver entry point the real backend uses. X(name) expands once per
// function; cuda.h's versioning macros (cuMemAlloc -> cuMemAlloc_v2) apply to
// the member type, while #name keeps the base name cuGetProcAddress expects.
// (Kept by hand: clang-format reflows it differently on every pass.)
// clang-format off
#define STACKCHECK_DRIVER_FUNCTIONS(X)                                        \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGet)            \
  X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceGetAttribute)              \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                    \
  X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)                   \
  X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemAllocAsync)               \
  X(cuMemFreeAsync) X(cuMemHostAlloc) X(cuMemFreeHost)                        \
  X(cuMemHostGetDevicePointer) X(cuMemcpyDtoH) X(cuMemcpyHtoD)                \
  X(cuModuleLoadData) X(cuModuleUnload)                                       \
  X(cuModuleGetFunction) X(cuLaunchKernel)                                    \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuStreamCreate)            \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery)                  \
  X(cuStreamAddCallback) X(cuLaunchHostFunc) X(cuStreamWaitEvent)             \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery)         \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuStreamWriteValue32)         \
  X(cuMemsetD32Async)
// clang-format on

struct CudaEntryPoints {
#define STACKCHECK_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  STACKCHECK_DRIVER_FUNCTIONS(STACKCHECK_DECLARE_MEMBER)
#undef STACKCHECK_DECLARE_MEMBER
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000
};

// The conventional name of the driver library.
inline constexpr absl::string_view kDriverLibrary = "libcuda.so.1";

// Loads `library` (a soname or a path) and resolves every function. Errors:
// NotFound "no CUDA driver: <library> not found (<dlerror>)" when it cannot be
// opened; FailedPrecondition when it is not a usable CUDA 12+ driver. The
// library stays loaded for the life of the process.
absl::StatusOr<CudaEntryPoints> LoadDriverFrom(absl::string_view library);

// The process-wide driver, loaded once from kDriverLibrary; every later call
// returns the first result, error included.
absl::StatusOr<const CudaEntryPoints*> LoadDriver();

// "CUDA_ERROR_..." for a driver result (our own table; no driver call).
std::string DriverErrorName(CUresult r);

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_CUDA_ENTRY_POINTS_H_
