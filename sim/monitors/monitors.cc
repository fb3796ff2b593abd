#include "sim/monitors/monitors.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/monitors/abort_attribution.h"
#include "sim/monitors/avoidable_oom.h"
#include "sim/monitors/bounded_cache.h"
#include "sim/monitors/data_race.h"
#include "sim/monitors/driver_call_in_callback.h"
#include "sim/monitors/leak.h"
#include "sim/monitors/mutex_discipline.h"
#include "sim/monitors/no_crash.h"
#include "sim/monitors/stack_overlap.h"
#include "sim/monitors/sync_completion.h"
#include "sim/monitors/use_after_free.h"

namespace stackcheck::sim {
namespace {

template <typename M>
std::unique_ptr<Monitor> Make(const MonitorParams&) {
  return std::make_unique<M>();
}
std::unique_ptr<Monitor> MakeBoundedCache(const MonitorParams& params) {
  return std::make_unique<BoundedCacheMonitor>(params.soft_limit, params.cache_bound);
}

// The registry: one row per monitor, in catalogue order. A new monitor is its
// own file (a Monitor that declares the event kinds it reads) plus a row here.
struct MonitorRow {
  absl::string_view name;
  std::unique_ptr<Monitor> (*make)(const MonitorParams&);
};
constexpr MonitorRow kMonitors[] = {
    {UseAfterFreeMonitor::kName, &Make<UseAfterFreeMonitor>},
    {StackOverlapMonitor::kName, &Make<StackOverlapMonitor>},
    {LeakMonitor::kName, &Make<LeakMonitor>},
    {DriverCallInCallbackMonitor::kName, &Make<DriverCallInCallbackMonitor>},
    {MutexDisciplineMonitor::kName, &Make<MutexDisciplineMonitor>},
    {AbortAttributionMonitor::kName, &Make<AbortAttributionMonitor>},
    {BoundedCacheMonitor::kName, &MakeBoundedCache},
    {SyncCompletionMonitor::kName, &Make<SyncCompletionMonitor>},
    {DataRaceMonitor::kName, &Make<DataRaceMonitor>},
    {AvoidableOomMonitor::kName, &Make<AvoidableOomMonitor>},
    {NoCrashMonitor::kName, &Make<NoCrashMonitor>},
};

std::vector<absl::string_view> Names() {
  std::vector<absl::string_view> names;
  for (const MonitorRow& row : kMonitors) names.push_back(row.name);
  return names;
}

}  // namespace

absl::Span<const absl::string_view> MonitorNames() {
  static const std::vector<absl::string_view>* const names =
      new std::vector<absl::string_view>(Names());
  return *names;
}

absl::StatusOr<std::unique_ptr<Monitor>> MakeMonitor(absl::string_view property,
                                                     const MonitorParams& params) {
  for (const MonitorRow& row : kMonitors) {
    if (row.name != property) continue;
    std::unique_ptr<Monitor> m = row.make(params);
    m->Reset();
    return m;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "no monitor for property \"", property, "\"; known: ", absl::StrJoin(MonitorNames(), ", ")));
}

std::vector<std::unique_ptr<Monitor>> MakeAllMonitors(const MonitorParams& params) {
  std::vector<std::unique_ptr<Monitor>> all;
  for (const MonitorRow& row : kMonitors) all.push_back(*MakeMonitor(row.name, params));
  return all;
}

}  // namespace stackcheck::sim
