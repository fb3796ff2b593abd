// What the runtime tells the testbed about itself, beyond its device and host
// calls: which region a thread is in, which region a fatal error names, how much
// memory the stacks cache holds, and which rare paths were taken. The simulator
// turns these into trace events that monitors check; the hardware runner logs
// them. Every method has a no-op default so a backend overrides what it needs.
#ifndef STACKCHECK_CORE_OBSERVER_H_
#define STACKCHECK_CORE_OBSERVER_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/cu_result.h"

namespace stackcheck {

// Region ids are the scenario's; 0 means "no region".
using RegionId = std::uint32_t;
inline constexpr RegionId kNoRegion = 0;

// What libgomp appends to the message of a failed region wait
// (GOMP_OFFLOAD_run's cuCtxSynchronize meeting CUDA_ERROR_LAUNCH_FAILED): the
// only words that tell a user a kernel aborted.
inline constexpr absl::string_view kAbortHint = "(perhaps abort was called)";

class RuntimeObserver {
 public:
  virtual ~RuntimeObserver() = default;

  // run(region) was entered / returned on the calling thread. A region
  // begins once its data is mapped, needing a stacks block of `stacks_bytes`
  // (0 when it runs on the host) while it runs.
  virtual void RegionBegin(RegionId /*region*/, std::uint64_t /*stacks_bytes*/) {}
  virtual void RegionEnd(RegionId /*region*/) {}

  // A fatal error is about to be raised. `attributed` is the region the message
  // blames (kNoRegion if none); `code` the driver result behind it.
  virtual void FatalReported(RegionId /*attributed*/, CuResult /*code*/,
                             absl::string_view /*message*/) {}
  // A non-fatal error message was printed (GOMP_PLUGIN_error): the caller
  // goes on and returns failure. `code` is the driver result behind it.
  virtual void ErrorReported(CuResult /*code*/, absl::string_view /*message*/) {}

  // The bytes the stacks cache holds at the moment a device_alloc has
  // applied the soft limit (for the bounded-cache property, which weighs it
  // against the regions running then).
  virtual void CacheHeld(std::uint64_t /*held_bytes*/) {}

  // A device_alloc (GOMP_OFFLOAD_alloc: mapping, omp_target_alloc, target
  // enter data) returned no memory for `bytes`, while the stacks cache held
  // `cached_bytes` (for the no-avoidable-oom property).
  virtual void AllocationFailed(std::uint64_t /*bytes*/, std::uint64_t /*cached_bytes*/) {}

  // A rare path was taken (coverage probes), e.g. "oom-retry".
  virtual void Probe(absl::string_view /*probe*/) {}
};

// For callers that observe nothing.
RuntimeObserver& NullObserver();

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_OBSERVER_H_
