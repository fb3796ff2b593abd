// Names for the Device calls, so a kDriverCall event can say which call was
// made (field `a`) without carrying a string.
#ifndef STACKCHECK_SIM_DRIVER_API_H_
#define STACKCHECK_SIM_DRIVER_API_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace stackcheck::sim {

// One value per core/device.h method, in the header's order.
enum class DriverApi : std::uint8_t {
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
  kMemHostAlloc,
  kMemFreeHost,
  kStreamWriteValue32,
  kMemcpyHtoD,
  kMemcpyDtoH,
};
inline constexpr int kDriverApiCount = 30;

// Bits of a kDriverCall / kDriverCallBlock event's field `b`.
inline constexpr std::uint32_t kCallFromCallback = 1;  // SEM-09: made on the callback thread
inline constexpr std::uint32_t kCallDuringTeardown = 2;  // SEM-15: concurrent with cuCtxDestroy

// The driver's name for the call, e.g. "cuMemFree".
absl::string_view DriverApiName(DriverApi api);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_DRIVER_API_H_
