// The event-fence design (event_fence.cc), shared by its registered policies:
// event-fence returns from run once the kernel is enqueued; event-fence-sync
// (event_fence_sync.cc) waits for it before run returns, so that a region has
// completed when run returns; event-fence-keep (event_fence_keep.cc) keeps
// the cached block across the program's allocations.
#ifndef STACKCHECK_CORE_POLICIES_EVENT_FENCE_H_
#define STACKCHECK_CORE_POLICIES_EVENT_FENCE_H_

#include <memory>

#include "core/policies/policy.h"

namespace stackcheck {

struct EventFenceOptions {
  // Run waits for its own kernel before it returns (event-fence-sync).
  bool wait_for_completion = false;
  // device_alloc leaves a block above the soft limit in place; the block is
  // given up only when an allocation fails, to grow it, or at close
  // (event-fence-keep). Otherwise device_alloc applies GCC's soft limit.
  bool keep_across_allocations = false;
};

std::unique_ptr<Policy> MakeEventFencePolicy(RuntimeContext& ctx, const EventFenceOptions& options);

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_EVENT_FENCE_H_
