#include "sim/monitors/leak.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sim/device_books.h"
#include "sim/event_format.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
namespace {

// How many leaked blocks a message lists before summarising.
constexpr int kBlocksNamed = 4;

}  // namespace

void LeakMonitor::Reset() { sticky_seen_ = false; }

std::optional<Violation> LeakMonitor::OnEvent(absl::Span<const Event> events, const SimView& view) {
  const Event& e = events.back();
  switch (e.kind) {
    case EventKind::kStickyError:
      sticky_seen_ = true;
      return std::nullopt;
    case EventKind::kCtxDestroy:
      return Teardown(events, view);
    default:
      return std::nullopt;
  }
}

std::optional<Violation> LeakMonitor::Teardown(absl::Span<const Event> events,
                                               const SimView& view) {
  const Event& e = events.back();
  std::optional<Violation> found;
  if (!sticky_seen_ && !view.sticky_error()) {
    std::uint64_t leaked_bytes = 0;
    int leaked_blocks = 0;
    std::string named;
    std::optional<std::size_t> first_alloc;
    // The books still show the context as it was (DeviceBooks::ApplyAfter).
    const DeviceBooks& books = view.device_books();
    for (const LiveBlock& b : books.ledger().live()) {
      if (!books.IsRuntimeBlock(b.serial)) continue;
      leaked_bytes += b.bytes;
      if (!first_alloc || b.alloc_index < *first_alloc) first_alloc = b.alloc_index;
      if (++leaked_blocks <= kBlocksNamed) {
        absl::StrAppend(&named, leaked_blocks > 1 ? "; " : "", FormatBlock(b.ptr, b.bytes),
                        " allocated by ", Who(view, b.allocated_by), " at event ", b.alloc_index);
      }
    }
    if (leaked_blocks > kBlocksNamed) {
      absl::StrAppend(&named, "; and ", leaked_blocks - kBlocksNamed, " more");
    }
    if (leaked_blocks > 0) {
      found = ViolationAtLast(kName, events,
                              absl::StrCat(Who(view, e.actor), " tore down the context with ",
                                           FormatBytes(leaked_bytes), " of runtime memory in ",
                                           leaked_blocks, " block(s) never freed: ", named));
      found->cause_index = first_alloc;
    }
  }
  return found;
}

}  // namespace stackcheck::sim
