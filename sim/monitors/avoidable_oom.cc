#include "sim/monitors/avoidable_oom.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/cu_result.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

AvoidableOomMonitor::Attempt& AvoidableOomMonitor::Of(ActorId actor) {
  for (Attempt& a : threads_) {
    if (a.actor == actor) return a;
  }
  Attempt& a = threads_.emplace_back();
  a.actor = actor;
  return a;
}

std::optional<Violation> AvoidableOomMonitor::OnEvent(absl::Span<const Event> events,
                                                      const SimView& view) {
  const Event& e = events.back();
  switch (e.kind) {
    case EventKind::kCacheHeld: {
      Attempt& a = Of(e.actor);
      // Not the failure: a kAlloc or the give-up ends an allocation.
      a.cached_at_start = e.As<payload::CacheHeld>().bytes;
      a.freed = false;
      return std::nullopt;
    }
    case EventKind::kFree:
      Of(e.actor).freed = true;
      return std::nullopt;
    case EventKind::kAlloc:
      Of(e.actor).out_of_memory = false;
      return std::nullopt;
    case EventKind::kAllocFailed:
      Of(e.actor).out_of_memory = e.As<payload::AllocFailed>().result == CuResult::kOutOfMemory;
      return std::nullopt;
    case EventKind::kFatalReported:
      exiting_ = true;
      return std::nullopt;
    case EventKind::kAllocGaveUp:
      break;
    default:
      return std::nullopt;
  }
  const auto gave_up = e.As<payload::AllocGaveUp>();
  Attempt& a = Of(e.actor);
  const bool judged = a.out_of_memory && !a.freed;
  const std::uint64_t cached = std::min(gave_up.cached_bytes, a.cached_at_start);
  a = Attempt{};
  a.actor = e.actor;
  if (!judged || cached == 0 || exiting_ || view.sticky_error()) return std::nullopt;
  const std::uint64_t need = view.device_charged_bytes(gave_up.bytes);
  const std::uint64_t free = view.device_free_bytes();
  if (need <= free || need > free + view.device_charged_bytes(cached)) return std::nullopt;
  return ViolationAtLast(
      kName, events,
      absl::StrCat("device_alloc of ", FormatBytes(gave_up.bytes), " on ", Who(view, e.actor),
                   " failed with out of memory while the stacks cache still held the ",
                   FormatBytes(cached),
                   " it held when the allocation began, and the thread "
                   "had freed nothing: ",
                   FormatBytes(free), " free, enough with the cached block released"));
}

}  // namespace stackcheck::sim
