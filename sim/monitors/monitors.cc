#include "sim/monitors/monitors.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

constexpr absl::string_view kNames[] = {
    UseAfterFreeMonitor::kName,     StackOverlapMonitor::kName,
    LeakMonitor::kName,             DriverCallInCallbackMonitor::kName,
    MutexDisciplineMonitor::kName,  AbortAttributionMonitor::kName,
    BoundedCacheMonitor::kName,     SyncCompletionMonitor::kName,
};

}  // namespace

absl::Span<const absl::string_view> MonitorNames() { return kNames; }

absl::StatusOr<std::unique_ptr<Monitor>> MakeMonitor(
    absl::string_view property, const MonitorParams& params) {
  std::unique_ptr<Monitor> m;
  if (property == UseAfterFreeMonitor::kName) {
    m = std::make_unique<UseAfterFreeMonitor>();
  } else if (property == StackOverlapMonitor::kName) {
    m = std::make_unique<StackOverlapMonitor>();
  } else if (property == LeakMonitor::kName) {
    m = std::make_unique<LeakMonitor>();
  } else if (property == DriverCallInCallbackMonitor::kName) {
    m = std::make_unique<DriverCallInCallbackMonitor>();
  } else if (property == MutexDisciplineMonitor::kName) {
    m = std::make_unique<MutexDisciplineMonitor>();
  } else if (property == AbortAttributionMonitor::kName) {
    m = std::make_unique<AbortAttributionMonitor>();
  } else if (property == BoundedCacheMonitor::kName) {
    m = std::make_unique<BoundedCacheMonitor>(params.soft_limit);
  } else if (property == SyncCompletionMonitor::kName) {
    m = std::make_unique<SyncCompletionMonitor>();
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("no monitor for property \"", property,
                     "\"; known: ", absl::StrJoin(kNames, ", ")));
  }
  m->Reset();
  return m;
}

std::vector<std::unique_ptr<Monitor>> MakeAllMonitors(
    const MonitorParams& params) {
  std::vector<std::unique_ptr<Monitor>> all;
  all.reserve(std::size(kNames));
  for (absl::string_view name : kNames) {
    all.push_back(*MakeMonitor(name, params));
  }
  return all;
}

}  // namespace stackcheck::sim
