// bounded-cache, GCC's contract (GOMP_OFFLOAD_alloc): once device_alloc has
// applied the soft limit (nvptx_stacks_free with force=false, under the
// stacks lock), the stacks cache holds no more than max(soft limit, the
// largest block a running region needs). The limit is lazy: a block above it
// lives until the next device_alloc, and a region on another thread may grow
// the cache again right after. Policies report the figure at that moment
// (RuntimeContext::ReportCacheHeld -> kCacheHeld); one without a soft limit
// reports it as device_alloc starts. This is the reviewer's first question on
// the V1 patch: a cache that keeps a large block can starve the program's
// own allocations. On a poisoned context the cache cannot shrink (SEM-05).
//
// "Running" is judged by happens-before (sync_clocks.h), not by the order
// the execution happened to log: a region runs at the report when its
// kRegionBegin happens before the report and its kRegionEnd does not. A
// region that began on another thread with nothing ordering it before the
// report cannot have grown the block the report saw, and one that ended
// with nothing ordering that before the report may, for all device_alloc
// can know, still use the block. The verdict is then the same in every
// execution the search counts as equivalent to this one.
//
// A policy that gives its block up only when an allocation fails promises
// another bound (CacheBound::kLargestRegion, core/cache_bound.h): at most
// max(soft limit, the largest block any region that began before the report
// needed), whether or not that region still runs - one block, never more than
// a region asked for. Its other half, that the block never starves an
// allocation, is no-avoidable-oom's.
#ifndef STACKCHECK_SIM_MONITORS_BOUNDED_CACHE_H_
#define STACKCHECK_SIM_MONITORS_BOUNDED_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "core/cache_bound.h"
#include "sim/monitor.h"
#include "sim/monitors/sync_clocks.h"

namespace stackcheck::sim {

class BoundedCacheMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "bounded-cache";

  explicit BoundedCacheMonitor(std::uint64_t soft_limit, CacheBound bound = CacheBound::kSoftLimit)
      : soft_limit_(soft_limit), bound_(bound) {}

  absl::string_view property() const override { return kName; }

  // A report within the soft limit needs nothing else; one above it reads
  // the trace up to it (regions and synchronisation) then.
  EventKindMask reads() const override { return Kinds({EventKind::kCacheHeld}); }
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  struct Region {
    ActorId actor = 0;
    std::uint64_t need = 0;
    vector_clock::Entry began = 0;  // its actor's epoch at kRegionBegin
    vector_clock::Entry ended = 0;  // ... at kRegionEnd; 0 while running
  };
  // Takes in the events from seen_ to the end of `events`.
  void CatchUp(absl::Span<const Event> events);
  // The largest need of a region that began before `actor` reports (its
  // clock now) and, under kSoftLimit, had not ended by then.
  std::uint64_t LargestNeed(ActorId actor);
  // The message (out of line: rare) for the newest event, a kCacheHeld above
  // the bound.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD std::optional<Violation> AboveLimit(
      absl::Span<const Event> events, const SimView& view, std::uint64_t needed) const;

  const std::uint64_t soft_limit_;
  const CacheBound bound_;
  SyncClocks clocks_;
  std::vector<Region> regions_;
  std::size_t seen_ = 0;  // events taken in so far
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_BOUNDED_CACHE_H_
