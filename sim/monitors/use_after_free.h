// no-use-after-free: no kernel starts on a stacks block that is no longer
// allocated, and no block disappears (free, async free, teardown) while a
// kernel that was enqueued on it has not finished. In the driver's waiting
// cuMemFree mode (SEM-11) the second half cannot fire; in the no-wait mode it
// is how a cache that frees under a queued kernel is caught.
#ifndef STACKCHECK_SIM_MONITORS_USE_AFTER_FREE_H_
#define STACKCHECK_SIM_MONITORS_USE_AFTER_FREE_H_

#include <optional>

#include "sim/monitor.h"
#include "sim/monitors/block_ledger.h"
#include "sim/monitors/kernel_table.h"

namespace stackcheck::sim {

class UseAfterFreeMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-use-after-free";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kAlloc, EventKind::kFree, EventKind::kAsyncFreeComplete,
                  EventKind::kCtxDestroy, EventKind::kKernelEnqueue,
                  EventKind::kKernelStart, EventKind::kKernelEnd,
                  EventKind::kKernelDropped, EventKind::kKernelVars});
  }
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events,
                                   const SimView& view) override;

 private:
  // A block went away; complains about the first unfinished kernel on it.
  std::optional<Violation> CheckGone(absl::Span<const Event> events,
                                     const SimView& view,
                                     const FreedBlock& gone);

  BlockLedger ledger_;
  KernelTable kernels_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_USE_AFTER_FREE_H_
