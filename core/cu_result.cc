#include "core/cu_result.h"

#include <cstdio>

namespace stackcheck {
namespace {

struct CuResultInfo {
  CuResult code;
  absl::string_view name;
  absl::string_view description;
};

// Our own wording, except where a libgomp message quotes the driver's
// (cuGetErrorString) and a property judges what the user sees: 719. The
// numeric values are cuda.h's.
constexpr CuResultInfo kTable[] = {
    {CuResult::kSuccess, "CUDA_SUCCESS", "no error"},
    {CuResult::kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "an argument is out of its valid range"},
    {CuResult::kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
     "not enough free device memory for the request"},
    {CuResult::kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED",
     "the driver has not been initialised"},
    {CuResult::kDeinitialized, "CUDA_ERROR_DEINITIALIZED", "the driver is shutting down"},
    {CuResult::kStubLibrary, "CUDA_ERROR_STUB_LIBRARY",
     "the stub driver library was loaded instead of the real one"},
    {CuResult::kNoDevice, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is present"},
    {CuResult::kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE", "the device ordinal is not valid"},
    {CuResult::kInvalidImage, "CUDA_ERROR_INVALID_IMAGE", "the module image is not valid"},
    {CuResult::kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT", "no valid context is current"},
    {CuResult::kInvalidPtx, "CUDA_ERROR_INVALID_PTX",
     "the PTX could not be compiled for this device"},
    {CuResult::kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE",
     "a handle (stream, event, function) is not valid"},
    {CuResult::kNotFound, "CUDA_ERROR_NOT_FOUND", "the named symbol was not found"},
    {CuResult::kNotReady, "CUDA_ERROR_NOT_READY", "the queried work has not completed yet"},
    {CuResult::kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "a kernel accessed an illegal address (sticky)"},
    {CuResult::kLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "the launch needs more resources than the device has"},
    {CuResult::kLaunchTimeout, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "a kernel ran past the watchdog timeout"},
    {CuResult::kContextIsDestroyed, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "the context was destroyed"},
    {CuResult::kAssert, "CUDA_ERROR_ASSERT", "a device-side assert failed (sticky)"},
    {CuResult::kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CuResult::kNotPermitted, "CUDA_ERROR_NOT_PERMITTED",
     "the operation is not permitted here (e.g. from a stream callback)"},
    {CuResult::kNotSupported, "CUDA_ERROR_NOT_SUPPORTED", "the operation is not supported"},
    {CuResult::kUnknown, "CUDA_ERROR_UNKNOWN", "an unknown internal error"},
};

const CuResultInfo* Find(CuResult r) {
  for (const CuResultInfo& info : kTable) {
    if (info.code == r) return &info;
  }
  return nullptr;
}

}  // namespace

absl::string_view CuResultName(CuResult r) {
  if (const CuResultInfo* info = Find(r)) return info->name;
  // Unknown codes are rare and only printed; a small rotating buffer keeps the
  // returned view valid for a while without allocating.
  static thread_local char buffers[4][32];
  static thread_local int next = 0;
  char* buf = buffers[next++ & 3];
  std::snprintf(buf, sizeof(buffers[0]), "CUDA_ERROR_%d", static_cast<int>(r));
  return buf;
}

absl::string_view CuResultDescription(CuResult r) {
  if (const CuResultInfo* info = Find(r)) return info->description;
  return "an error code this tool does not know";
}

}  // namespace stackcheck
