#include "real/cuda_entry_points.h"

#include <dlfcn.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/cu_result.h"

namespace stackcheck::real {
namespace {

// cuGetProcAddress as CUDA 12 defined it (with the symbolStatus argument). We
// take the _v2 symbol by name: a driver older than 12.0 does not export it,
// and our PTX needs a CUDA 13 driver anyway.
using GetProcAddressFn = CUresult (*)(const char* symbol, void** pfn, int cuda_version,
                                      cuuint64_t flags, CUdriverProcAddressQueryResult* status);
constexpr const char kGetProcAddressSymbol[] = "cuGetProcAddress_v2";

// cuGetProcAddress returns the newest ABI of a function at the version asked
// for, but cuda.h keeps declaring the old one for a few functions whose ABI
// changed: asking for those at CUDA_VERSION would hand us a function with a
// different signature from the one we call. CUDA 13 changed cuCtxSynchronize
// to take a context (PFN_cuCtxSynchronize_v13000); the header's is the 2.0
// one. Seen on the H200: called without the argument it returned 709.
int AbiVersionOf(absl::string_view name) {
  if (name == "cuCtxSynchronize") return 12000;
  return CUDA_VERSION;
}

absl::Status Resolve(GetProcAddressFn get_proc, const char* name, void** slot) {
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult r = get_proc(name, slot, AbiVersionOf(name), CU_GET_PROC_ADDRESS_DEFAULT, &found);
  if (r == CUDA_SUCCESS && found == CU_GET_PROC_ADDRESS_SUCCESS && *slot) {
    return absl::OkStatus();
  }
  if (found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT) {
    return absl::FailedPreconditionError(absl::StrCat("CUDA driver too old: ", name, " needs CUDA ",
                                                      CUDA_VERSION / 1000, ".",
                                                      CUDA_VERSION % 1000 / 10, " or newer"));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("CUDA driver lacks ", name, " (", DriverErrorName(r), ")"));
}

}  // namespace

std::string DriverErrorName(CUresult r) {
  return std::string(CuResultName(static_cast<CuResult>(r)));
}

absl::StatusOr<CudaEntryPoints> LoadDriverFrom(absl::string_view library) {
  const std::string lib(library);
  // RTLD_LOCAL: the driver's symbols must not satisfy anything else.
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(
        absl::StrCat("no CUDA driver: ", lib, " not found (", why ? why : "dlopen failed", ")"));
  }
  auto get_proc = reinterpret_cast<GetProcAddressFn>(dlsym(handle, kGetProcAddressSymbol));
  if (get_proc == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA driver: ", lib, " has no ", kGetProcAddressSymbol, " (not a CUDA 12+ driver)"));
  }
  CudaEntryPoints api;
#define STACKCHECK_RESOLVE(name)                                                                 \
  if (absl::Status s = Resolve(get_proc, #name, reinterpret_cast<void**>(&api.name)); !s.ok()) { \
    return s;                                                                                    \
  }
  STACKCHECK_DRIVER_FUNCTIONS(STACKCHECK_RESOLVE)
#undef STACKCHECK_RESOLVE
  if (CUresult r = api.cuDriverGetVersion(&api.driver_version); r != CUDA_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver: cuDriverGetVersion failed (", DriverErrorName(r), ")"));
  }
  // The handle is deliberately never closed: function pointers outlive us.
  return api;
}

absl::StatusOr<const CudaEntryPoints*> LoadDriver() {
  // Loaded once; a leaked singleton so callback threads never see it destroyed.
  static const auto* const loaded =
      new absl::StatusOr<CudaEntryPoints>(LoadDriverFrom(kDriverLibrary));
  if (!loaded->ok()) return loaded->status();
  return &loaded->value();
}

}  // namespace stackcheck::real
