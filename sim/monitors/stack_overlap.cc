#include "sim/monitors/stack_overlap.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim/device_books.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

std::optional<Violation> StackOverlapMonitor::OnEvent(absl::Span<const Event> events,
                                                      const SimView& view) {
  const Event& e = events.back();
  const DeviceBooks& books = view.device_books();
  switch (e.kind) {
    case EventKind::kKernelEnqueue: {
      const KernelInFlight& k = books.in_flight().back();  // this one
      const LiveBlock* b = books.ledger().Find(k.block);
      // A base outside every block is no-use-after-free's to report.
      if (b == nullptr || k.stack_end() <= b->end()) return std::nullopt;
      return PastBlock(events, view, k, *b);
    }
    case EventKind::kKernelStart: {
      const KernelInFlight* k = books.FindKernel(e.As<payload::Kernel>().kernel);
      if (k == nullptr) return std::nullopt;
      for (const KernelInFlight& other : books.in_flight()) {
        if (!other.started || other.id == k->id) continue;
        const std::uint64_t lo = std::max(k->stacks, other.stacks);
        const std::uint64_t hi = std::min(k->stack_end(), other.stack_end());
        if (lo >= hi) continue;
        return Overlap(events, *k, other, lo, hi);
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<Violation> StackOverlapMonitor::PastBlock(absl::Span<const Event> events,
                                                        const SimView& view,
                                                        const KernelInFlight& k,
                                                        const LiveBlock& b) {
  return ViolationAtLast(
      kName, events,
      absl::StrCat(Who(view, events.back().actor), " enqueued ", KernelLabel(k), " needing ",
                   FormatBytes(k.stack_bytes()), " of stacks (", k.slots, " warps x ",
                   FormatBytes(k.per_warp), ") from 0x", absl::Hex(k.stacks), ", but block ",
                   FormatBlock(b.ptr, b.bytes), " ends ", FormatBytes(k.stack_end() - b.end()),
                   " short: its last warps write past the block"));
}

std::optional<Violation> StackOverlapMonitor::Overlap(absl::Span<const Event> events,
                                                      const KernelInFlight& k,
                                                      const KernelInFlight& other, std::uint64_t lo,
                                                      std::uint64_t hi) {
  return ViolationAtLast(
      kName, events,
      absl::StrCat(KernelLabel(k), " started on stacks ", FormatBlock(k.stacks, k.stack_bytes()),
                   " (stream ", k.stream, ") while ", KernelLabel(other), " still runs on ",
                   FormatBlock(other.stacks, other.stack_bytes()), " (stream ", other.stream,
                   ", started at event ", other.start_index, "): their warp slots share ",
                   FormatBlock(lo, hi - lo)));
}

}  // namespace stackcheck::sim
