// Coverage probes: names of the rare situations a campaign should reach.
//
// The runtime calls RuntimeObserver::Probe(kProbeOomRetry) etc. when it takes
// a rare path; the simulator records that as a kProbe event whose payload is
// the name's id in its probe registry (sim/probe_registry.h). The other probes are recognised by
// the coverage counter from the event stream alone (sim/monitors/coverage_probes.h).
#ifndef STACKCHECK_CORE_PROBES_H_
#define STACKCHECK_CORE_PROBES_H_

#include "absl/strings/string_view.h"

namespace stackcheck {

// Reported by the runtime through RuntimeObserver::Probe.
// device_alloc's allocation failed and it retried after freeing the cache.
inline constexpr absl::string_view kProbeOomRetry = "oom-retry";
// device_alloc freed a cached block that was above the soft limit.
inline constexpr absl::string_view kProbeSoftLimitFree = "soft-limit-free";

// Recognised from the event stream by the simulator's coverage counter.
// A stream callback ran after the block its region's kernel used had been
// freed and another block allocated since.
inline constexpr absl::string_view kProbeCallbackAfterRealloc = "callback-after-realloc";
// A kernel aborted while another region was in flight.
inline constexpr absl::string_view kProbeAbortWhileOtherRegionInFlight =
    "abort-while-other-region-in-flight";
// cuMemFree started waiting while a callback or host function was running.
inline constexpr absl::string_view kProbeFreeWaitsOnRunningCallback =
    "free-waits-on-running-callback";

// The probes the runtime reports itself, and every probe a campaign counts.
inline constexpr absl::string_view kRuntimeProbes[] = {
    kProbeOomRetry,
    kProbeSoftLimitFree,
};
inline constexpr absl::string_view kAllProbes[] = {
    kProbeCallbackAfterRealloc, kProbeAbortWhileOtherRegionInFlight, kProbeOomRetry,
    kProbeSoftLimitFree,        kProbeFreeWaitsOnRunningCallback,
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_PROBES_H_
