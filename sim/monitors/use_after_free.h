// no-use-after-free: no kernel starts on a stacks block that is no longer
// allocated, and no block disappears (free, async free, teardown) while a
// kernel that was enqueued on it has not finished. In the driver's waiting
// cuMemFree mode (SEM-11) the second half cannot fire; in the no-wait mode it
// is how a cache that frees under a queued kernel is caught.
#ifndef STACKCHECK_SIM_MONITORS_USE_AFTER_FREE_H_
#define STACKCHECK_SIM_MONITORS_USE_AFTER_FREE_H_

#include <optional>

#include "absl/base/attributes.h"
#include "sim/block_ledger.h"
#include "sim/kernel_table.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class UseAfterFreeMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-use-after-free";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kFree, EventKind::kAsyncFreeComplete, EventKind::kCtxDestroy,
                  EventKind::kKernelStart});
  }
  bool reads_device_books() const override { return true; }
  void Reset() override {}
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  // Out of line, since they are rare: the context teardown, and the messages.
  ABSL_ATTRIBUTE_NOINLINE static std::optional<Violation> Teardown(absl::Span<const Event> events,
                                                                   const SimView& view);
  // `k` started on (or with its variables in) a block that is gone.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD static std::optional<Violation> StartedOnGone(
      absl::Span<const Event> events, const SimView& view, const KernelInFlight& k);
  // `gone` went away while `k`, enqueued on it, had not finished.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD static std::optional<Violation> GoneUnder(
      absl::Span<const Event> events, const SimView& view, const FreedBlock& gone,
      const KernelInFlight& k);
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_USE_AFTER_FREE_H_
