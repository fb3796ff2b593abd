// The PTX images compiled from real/kernels/*.cu and embedded in the binary.
#ifndef STACKCHECK_REAL_KERNELS_EMBEDDED_KERNELS_H_
#define STACKCHECK_REAL_KERNELS_EMBEDDED_KERNELS_H_

#include "absl/strings/string_view.h"
#include "absl/types/optional.h"

namespace stackcheck::real {

// The NUL-terminated PTX of the image called `name` (core/device.h's
// kKernelImage), or nullopt for an image we do not embed.
absl::optional<const char*> EmbeddedPtx(absl::string_view name);

// Slots of the host-mapped report every kernel of the image writes; must match
// stackcheck_kernels.cu's ReportSlot. The kernels' last two parameters are
// this report (host-mapped) and a device-memory counter of warps checked.
enum KernelReportSlot : int {
  kReportCorruptions = 0,
  kReportExpected = 1,
  kReportObserved = 2,
  kReportSlots = 3,
};

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_KERNELS_EMBEDDED_KERNELS_H_
