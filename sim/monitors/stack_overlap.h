// no-stack-overlap: a kernel's warp slots lie inside one allocated block that
// is large enough for teams x warps x per-warp stack (checked at enqueue, where
// the arguments are copied), and no two running kernels' slots overlap
// (checked when a kernel starts). Two kernels queued on the same block one
// after the other are fine -- that is what the cache is for.
#ifndef STACKCHECK_SIM_MONITORS_STACK_OVERLAP_H_
#define STACKCHECK_SIM_MONITORS_STACK_OVERLAP_H_

#include <optional>

#include "absl/base/attributes.h"
#include "sim/block_ledger.h"
#include "sim/kernel_table.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class StackOverlapMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-stack-overlap";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kKernelEnqueue, EventKind::kKernelStart});
  }
  bool reads_device_books() const override { return true; }
  void Reset() override {}
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  // The messages, out of line since they are rare: `k`'s warp slots run
  // past `b`; `k` started on slots [lo, hi) that running `other` uses.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD static std::optional<Violation> PastBlock(
      absl::Span<const Event> events, const SimView& view, const KernelInFlight& k,
      const LiveBlock& b);
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD static std::optional<Violation> Overlap(
      absl::Span<const Event> events, const KernelInFlight& k, const KernelInFlight& other,
      std::uint64_t lo, std::uint64_t hi);
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_STACK_OVERLAP_H_
