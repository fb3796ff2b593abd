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
#ifndef STACKCHECK_SIM_MONITORS_BOUNDED_CACHE_H_
#define STACKCHECK_SIM_MONITORS_BOUNDED_CACHE_H_

#include <cstdint>
#include <optional>

#include "absl/base/attributes.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class BoundedCacheMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "bounded-cache";

  explicit BoundedCacheMonitor(std::uint64_t soft_limit)
      : soft_limit_(soft_limit) {}

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kCacheHeld});
  }
  void Reset() override {}
  std::optional<Violation> OnEvent(absl::Span<const Event> events,
                                   const SimView& view) override;

 private:
  // The message (out of line: rare) for the newest event, a kCacheHeld above
  // the bound.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD std::optional<Violation> AboveLimit(
      absl::Span<const Event> events, const SimView& view) const;

  const std::uint64_t soft_limit_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_BOUNDED_CACHE_H_
