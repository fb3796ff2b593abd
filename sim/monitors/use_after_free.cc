#include "sim/monitors/use_after_free.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sim/device_books.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
namespace {

// "freed by T1 at event 41" / "invalidated by the context teardown at event 57".
std::string HowGone(const SimView& view, const FreedBlock& f) {
  return f.by_teardown
             ? absl::StrCat("invalidated by the context teardown at event ", f.free_index)
             : absl::StrCat("freed by ", Who(view, f.freed_by), " at event ", f.free_index);
}

}  // namespace

std::optional<Violation> UseAfterFreeMonitor::OnEvent(absl::Span<const Event> events,
                                                      const SimView& view) {
  const Event& e = events.back();
  const DeviceBooks& books = view.device_books();
  switch (e.kind) {
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete: {
      const FreedBlock* gone = books.just_freed();
      if (gone == nullptr) return std::nullopt;
      for (const KernelInFlight& k : books.in_flight()) {
        if (k.block == gone->serial || k.vars_block == gone->serial ||
            (k.data != 0 && k.data_block == gone->serial)) {
          return GoneUnder(events, view, *gone, k);
        }
      }
      return std::nullopt;
    }
    case EventKind::kCtxDestroy:
      return Teardown(events, view);
    case EventKind::kKernelStart: {
      const KernelInFlight* k = books.FindKernel(e.As<payload::Kernel>().kernel);
      if (k == nullptr) return std::nullopt;
      const BlockLedger& ledger = books.ledger();
      if ((k->vars != 0 && !ledger.IsLive(k->vars_block)) ||
          (k->data != 0 && !ledger.IsLive(k->data_block)) || !ledger.IsLive(k->block)) {
        return StartedOnGone(events, view, *k);
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

std::optional<Violation> UseAfterFreeMonitor::Teardown(absl::Span<const Event> events,
                                                       const SimView& view) {
  const Event& e = events.back();
  // Teardown drains first (SEM-15), so a kernel still in flight here means
  // its block vanished under it -- unless a sticky error already dropped
  // the queue and nothing can be said about the poisoned context.
  // The books still show the context as it was (DeviceBooks::ApplyAfter).
  const DeviceBooks& books = view.device_books();
  const BlockLedger& ledger = books.ledger();
  std::optional<Violation> found;
  if (!view.sticky_error()) {
    for (const KernelInFlight& k : books.in_flight()) {
      const LiveBlock* b = ledger.Find(k.block);
      if (b == nullptr) b = ledger.Find(k.vars_block);
      if (b == nullptr && k.data != 0) b = ledger.Find(k.data_block);
      if (b == nullptr) continue;
      found = ViolationAtLast(
          kName, events,
          absl::StrCat("the context teardown by ", Who(view, e.actor), " invalidated block ",
                       FormatBlock(b->ptr, b->bytes), " while ", KernelLabel(k), ", enqueued by ",
                       Who(view, k.enqueued_by), " at event ", k.enqueue_index, ", ",
                       k.started ? "was still running on it" : "was still queued on it"));
      found->cause_index = k.enqueue_index;
      break;
    }
  }
  return found;
}

std::optional<Violation> UseAfterFreeMonitor::StartedOnGone(absl::Span<const Event> events,
                                                            const SimView& view,
                                                            const KernelInFlight& k) {
  const BlockLedger& ledger = view.device_books().ledger();
  if (k.vars != 0 && !ledger.IsLive(k.vars_block)) {
    const FreedBlock* f = k.vars_block != kNoBlock ? ledger.FindFreed(k.vars_block)
                                                   : ledger.LastFreedContaining(k.vars);
    Violation v = ViolationAtLast(
        kName, events,
        absl::StrCat(
            KernelLabel(k), " started with its variable table at 0x", absl::Hex(k.vars),
            f == nullptr
                ? std::string(", which no live block held")
                : absl::StrCat(" in block ", FormatBlock(f->ptr, f->bytes), " ", HowGone(view, *f)),
            " (enqueued by ", Who(view, k.enqueued_by), " at event ", k.enqueue_index, ")"));
    if (f != nullptr) v.cause_index = f->free_index;
    return v;
  }
  if (k.data != 0 && !ledger.IsLive(k.data_block)) {
    const FreedBlock* f = k.data_block != kNoBlock ? ledger.FindFreed(k.data_block)
                                                   : ledger.LastFreedContaining(k.data);
    Violation v = ViolationAtLast(
        kName, events,
        absl::StrCat(
            KernelLabel(k), " started using program memory at 0x", absl::Hex(k.data),
            f == nullptr
                ? std::string(", which no live block held")
                : absl::StrCat(" in block ", FormatBlock(f->ptr, f->bytes), " ", HowGone(view, *f)),
            " (enqueued by ", Who(view, k.enqueued_by), " at event ", k.enqueue_index, ")"));
    if (f != nullptr) v.cause_index = f->free_index;
    return v;
  }
  const std::string stacks = FormatBlock(k.stacks, k.stack_bytes());
  const FreedBlock* f =
      k.block != kNoBlock ? ledger.FindFreed(k.block) : ledger.LastFreedContaining(k.stacks);
  if (f == nullptr) {
    return ViolationAtLast(
        kName, events,
        absl::StrCat(KernelLabel(k), " started on stacks ", stacks,
                     ", which no live block held when ", Who(view, k.enqueued_by),
                     " enqueued it at event ", k.enqueue_index, " (never allocated)"));
  }
  Violation v = ViolationAtLast(
      kName, events,
      absl::StrCat(KernelLabel(k), " started on stacks ", stacks, " in block ",
                   FormatBlock(f->ptr, f->bytes), " ", HowGone(view, *f), " (enqueued by ",
                   Who(view, k.enqueued_by), " at event ", k.enqueue_index, ")"));
  v.cause_index = f->free_index;
  return v;
}

std::optional<Violation> UseAfterFreeMonitor::GoneUnder(absl::Span<const Event> events,
                                                        const SimView& view, const FreedBlock& gone,
                                                        const KernelInFlight& k) {
  Violation v = ViolationAtLast(
      kName, events,
      absl::StrCat(k.block == gone.serial        ? "block "
                   : k.vars_block == gone.serial ? "variable block "
                                                 : "program block ",
                   FormatBlock(gone.ptr, gone.bytes), " ", HowGone(view, gone), " while ",
                   KernelLabel(k), ", enqueued on stream ", k.stream, " by ",
                   Who(view, k.enqueued_by), " at event ", k.enqueue_index, ", ",
                   k.started ? absl::StrCat("is running on it since event ", k.start_index)
                             : std::string("is still queued to use it")));
  v.cause_index = k.enqueue_index;
  return v;
}

}  // namespace stackcheck::sim
