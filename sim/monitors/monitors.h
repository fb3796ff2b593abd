// The monitor catalogue: every invariant the simulator checks over the event
// stream, built by property name (the names of properties/catalogue.h).
//
//   auto m = sim::MakeMonitor("no-use-after-free", {});
//   if (!m.ok()) { /* unknown name: m.status().message() says which */ }
//   (*m)->Reset();  // before each execution
//   for each appended event: if (auto v = (*m)->OnEvent(events, view)) stop(*v);
//   at quiescence / the end: (*m)->OnQuiescence(events, view, all_finished);
//
// For many monitors at once, MakeMonitorSet (monitor_set.h) is cheaper per
// event than a vector of them. Coverage probes: coverage_probes.h.
#ifndef STACKCHECK_SIM_MONITORS_MONITORS_H_
#define STACKCHECK_SIM_MONITORS_MONITORS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/cache_bound.h"
#include "core/scenario.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

// What a monitor may need from the scenario.
struct MonitorParams {
  std::uint64_t soft_limit = kDefaultSoftLimit;     // bounded-cache
  CacheBound cache_bound = CacheBound::kSoftLimit;  // the policy's, bounded-cache
};

// Every name MakeMonitor accepts, in catalogue order.
absl::Span<const absl::string_view> MonitorNames();

// A fresh monitor for `property`; InvalidArgument naming the known properties
// when there is none of that name.
absl::StatusOr<std::unique_ptr<Monitor>> MakeMonitor(absl::string_view property,
                                                     const MonitorParams& params);

// One monitor of each name in MonitorNames().
std::vector<std::unique_ptr<Monitor>> MakeAllMonitors(const MonitorParams& params);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_MONITORS_H_
