// The event-fence design (event_fence.cc), shared by its two registered
// policies: event-fence returns from run once the kernel is enqueued;
// event-fence-sync (event_fence_sync.cc) also waits for them
// for it before run returns, so that a region has completed when run returns.
#ifndef STACKCHECK_CORE_POLICIES_EVENT_FENCE_H_
#define STACKCHECK_CORE_POLICIES_EVENT_FENCE_H_

#include <memory>

#include "core/policies/policy.h"

namespace stackcheck {

std::unique_ptr<Policy> MakeEventFencePolicy(RuntimeContext& ctx, bool wait_for_completion);

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_EVENT_FENCE_H_
