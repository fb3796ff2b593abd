// Compile-time proof that core/cu_result.h's values are cuda.h's. The device
// interface passes driver results through unchanged (a static_cast), so a
// mismatch here would silently mislabel every error the real backend reports.
#include <cuda.h>

#include "core/cu_result.h"

namespace stackcheck::real {
namespace {

#define STACKCHECK_SAME(ours, theirs) \
  static_assert(static_cast<int>(CuResult::ours) == (theirs), #ours " must equal " #theirs)

STACKCHECK_SAME(kSuccess, CUDA_SUCCESS);
STACKCHECK_SAME(kInvalidValue, CUDA_ERROR_INVALID_VALUE);
STACKCHECK_SAME(kOutOfMemory, CUDA_ERROR_OUT_OF_MEMORY);
STACKCHECK_SAME(kNotInitialized, CUDA_ERROR_NOT_INITIALIZED);
STACKCHECK_SAME(kDeinitialized, CUDA_ERROR_DEINITIALIZED);
STACKCHECK_SAME(kStubLibrary, CUDA_ERROR_STUB_LIBRARY);
STACKCHECK_SAME(kNoDevice, CUDA_ERROR_NO_DEVICE);
STACKCHECK_SAME(kInvalidDevice, CUDA_ERROR_INVALID_DEVICE);
STACKCHECK_SAME(kInvalidImage, CUDA_ERROR_INVALID_IMAGE);
STACKCHECK_SAME(kInvalidContext, CUDA_ERROR_INVALID_CONTEXT);
STACKCHECK_SAME(kInvalidPtx, CUDA_ERROR_INVALID_PTX);
STACKCHECK_SAME(kInvalidHandle, CUDA_ERROR_INVALID_HANDLE);
STACKCHECK_SAME(kNotFound, CUDA_ERROR_NOT_FOUND);
STACKCHECK_SAME(kNotReady, CUDA_ERROR_NOT_READY);
STACKCHECK_SAME(kIllegalAddress, CUDA_ERROR_ILLEGAL_ADDRESS);
STACKCHECK_SAME(kLaunchOutOfResources, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
STACKCHECK_SAME(kLaunchTimeout, CUDA_ERROR_LAUNCH_TIMEOUT);
STACKCHECK_SAME(kContextIsDestroyed, CUDA_ERROR_CONTEXT_IS_DESTROYED);
STACKCHECK_SAME(kAssert, CUDA_ERROR_ASSERT);
STACKCHECK_SAME(kLaunchFailed, CUDA_ERROR_LAUNCH_FAILED);
STACKCHECK_SAME(kNotPermitted, CUDA_ERROR_NOT_PERMITTED);
STACKCHECK_SAME(kNotSupported, CUDA_ERROR_NOT_SUPPORTED);
STACKCHECK_SAME(kUnknown, CUDA_ERROR_UNKNOWN);

#undef STACKCHECK_SAME

}  // namespace
}  // namespace stackcheck::real
