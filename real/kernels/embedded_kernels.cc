#include "real/kernels/embedded_kernels.h"

#include "core/device.h"

namespace stackcheck::real {
namespace {
#include "real/kernels/stackcheck_ptx.inc"
}  // namespace

absl::optional<const char*> EmbeddedPtx(absl::string_view name) {
  if (name == kKernelImage) {
    return reinterpret_cast<const char*>(kStackcheckPtx);
  }
  return absl::nullopt;
}

}  // namespace stackcheck::real
