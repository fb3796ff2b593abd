// sync-completion: when run(region) returns, the kernel it launched has
// completed. V1's callback-based release returns while the kernel still runs;
// that is a semantic deviation (an abort can no longer be reported by run, host
// code may read results early) which a policy can declare it accepts.
//
// A kernel belongs to the run() call when the same thread enqueued it with the
// region's tag; one dropped after a sticky error counts as finished.
#ifndef STACKCHECK_SIM_MONITORS_SYNC_COMPLETION_H_
#define STACKCHECK_SIM_MONITORS_SYNC_COMPLETION_H_

#include <optional>

#include "absl/base/attributes.h"
#include "sim/kernel_table.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class SyncCompletionMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "sync-completion";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override { return Kinds({EventKind::kRegionEnd}); }
  bool reads_device_books() const override { return true; }
  void Reset() override {}
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  // The message (out of line: rare): the newest event, a kRegionEnd, came
  // while `k` of that region was unfinished.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD static std::optional<Violation> Unfinished(
      absl::Span<const Event> events, const SimView& view, const KernelInFlight& k);
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_SYNC_COMPLETION_H_
