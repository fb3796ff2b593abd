#include "sim/monitors/monitor_set.h"

#include <initializer_list>
#include <utility>

#include "sim/monitors/abort_attribution.h"
#include "sim/monitors/bounded_cache.h"
#include "sim/monitors/driver_call_in_callback.h"
#include "sim/monitors/leak.h"
#include "sim/monitors/mutex_discipline.h"
#include "sim/monitors/stack_overlap.h"
#include "sim/monitors/sync_completion.h"
#include "sim/monitors/use_after_free.h"

namespace stackcheck::sim {
namespace {

static_assert(static_cast<int>(EventKind::kProbe) < 64,
              "EventKindMask has one bit per kind");

constexpr EventKindMask Kinds(std::initializer_list<EventKind> kinds) {
  EventKindMask mask = 0;
  for (EventKind k : kinds) mask |= KindBit(k);
  return mask;
}

// What each monitor's OnEvent switches on. A kind missing here would silently
// blind the monitor inside a set; monitor_set_test replays engine traces
// through both paths to catch that.
constexpr EventKindMask kMemoryAndKernels =
    Kinds({EventKind::kAlloc, EventKind::kFree, EventKind::kAsyncFreeComplete,
           EventKind::kCtxDestroy, EventKind::kKernelEnqueue,
           EventKind::kKernelStart, EventKind::kKernelEnd,
           EventKind::kKernelDropped, EventKind::kKernelVars});

}  // namespace

EventKindMask EventKindsOf(absl::string_view property) {
  if (property == UseAfterFreeMonitor::kName) return kMemoryAndKernels;
  if (property == StackOverlapMonitor::kName) return kMemoryAndKernels;
  if (property == LeakMonitor::kName) {
    return Kinds({EventKind::kRegionBegin, EventKind::kRegionEnd,
                  EventKind::kAlloc, EventKind::kKernelEnqueue,
                  EventKind::kFree, EventKind::kAsyncFreeComplete,
                  EventKind::kStickyError, EventKind::kCtxDestroy});
  }
  if (property == DriverCallInCallbackMonitor::kName) {
    return Kinds({EventKind::kCallbackStart, EventKind::kHostFnStart,
                  EventKind::kCallbackEnd, EventKind::kHostFnEnd,
                  EventKind::kDriverCall, EventKind::kDriverCallBlock});
  }
  if (property == MutexDisciplineMonitor::kName) {
    return Kinds({EventKind::kMutexCreate, EventKind::kMutexLock,
                  EventKind::kMutexBlock, EventKind::kMutexTryLockFail,
                  EventKind::kMutexUnlock, EventKind::kMutexDestroy});
  }
  if (property == AbortAttributionMonitor::kName) {
    return Kinds({EventKind::kKernelEnqueue, EventKind::kKernelEnd,
                  EventKind::kKernelDropped, EventKind::kStickyError,
                  EventKind::kFatalReported, EventKind::kErrorReported,
                  EventKind::kProcessExit});
  }
  if (property == BoundedCacheMonitor::kName) {
    return KindBit(EventKind::kCacheHeld);
  }
  if (property == SyncCompletionMonitor::kName) {
    return Kinds({EventKind::kKernelEnqueue, EventKind::kKernelStart,
                  EventKind::kKernelEnd, EventKind::kKernelDropped,
                  EventKind::kRegionEnd});
  }
  return kAllEventKinds;
}

MonitorSet::MonitorSet(std::vector<std::unique_ptr<Monitor>> monitors,
                       absl::Span<const EventKindMask> kinds)
    : monitors_(std::move(monitors)) {
  for (std::size_t i = 0; i < monitors_.size(); ++i) {
    const EventKindMask mask = i < kinds.size() ? kinds[i] : kAllEventKinds;
    for (int k = 0; k < kKindSlots; ++k) {
      if ((mask >> k) & 1) by_kind_[k].push_back(monitors_[i].get());
    }
  }
}

void MonitorSet::Reset() {
  for (auto& m : monitors_) m->Reset();
}

std::optional<Violation> MonitorSet::OnEvent(absl::Span<const Event> events,
                                             const SimView& view) {
  const int kind = static_cast<int>(events.back().kind);
  if (kind >= kKindSlots) return std::nullopt;
  for (Monitor* m : by_kind_[kind]) {
    if (auto v = m->OnEvent(events, view)) return v;
  }
  return std::nullopt;
}

std::optional<Violation> MonitorSet::OnQuiescence(
    absl::Span<const Event> events, const SimView& view, bool all_finished) {
  for (auto& m : monitors_) {
    if (auto v = m->OnQuiescence(events, view, all_finished)) return v;
  }
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<Monitor>> MakeMonitorSet(
    absl::Span<const absl::string_view> properties,
    const MonitorParams& params) {
  std::vector<std::unique_ptr<Monitor>> monitors;
  std::vector<EventKindMask> kinds;
  for (absl::string_view name : properties) {
    absl::StatusOr<std::unique_ptr<Monitor>> m = MakeMonitor(name, params);
    if (!m.ok()) return m.status();
    monitors.push_back(*std::move(m));
    kinds.push_back(EventKindsOf(name));
  }
  return std::make_unique<MonitorSet>(std::move(monitors), kinds);
}

}  // namespace stackcheck::sim
