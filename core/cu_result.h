// CUresult-valued return codes of the device interface.
//
// The numeric values are the CUDA Driver API's (cuda.h, CUDA 13.0); real/ checks
// them against cuda.h at compile time. Names and descriptions come from our own
// table because the driver stub cannot name them (cuGetErrorName needs a driver).
#ifndef STACKCHECK_CORE_CU_RESULT_H_
#define STACKCHECK_CORE_CU_RESULT_H_

#include "absl/strings/string_view.h"

namespace stackcheck {

enum class CuResult : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kNotInitialized = 3,
  kDeinitialized = 4,
  kStubLibrary = 34,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidImage = 200,
  kInvalidContext = 201,
  kInvalidPtx = 218,
  kInvalidHandle = 400,
  kNotFound = 500,
  kNotReady = 600,
  kIllegalAddress = 700,
  kLaunchOutOfResources = 701,
  kLaunchTimeout = 702,
  kContextIsDestroyed = 709,
  kAssert = 710,
  kLaunchFailed = 719,
  kNotPermitted = 800,
  kNotSupported = 801,
  kUnknown = 999,
};

// "CUDA_ERROR_LAUNCH_FAILED" style name; "CUDA_ERROR_<n>" for codes we don't know.
absl::string_view CuResultName(CuResult r);
// One-line human description of the code.
absl::string_view CuResultDescription(CuResult r);

// Errors after which the context is unusable for the rest of the process (SEM-05).
inline bool IsStickyError(CuResult r) {
  return r == CuResult::kIllegalAddress || r == CuResult::kAssert || r == CuResult::kLaunchFailed;
}

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_CU_RESULT_H_
