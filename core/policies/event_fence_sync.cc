// event-fence-sync: event-fence, but run waits for its own fence before it
// returns, so that the "sync-completion" property holds: the region's kernel
// has completed when run returns, as a target construct without nowait
// promises. It matters where the host can observe the region other than
// through the NULL stream: results in unified shared memory, side effects
// outside device memory, and an abort that must stop the program before the
// code after the target construct runs (event-fence reports it at the next
// device operation or at close).
//
// Compared with v2-gcc11, which is also synchronous, it keeps event-fence's
// answers to V2's exit-path hazards: the stacks lock is released before a
// fatal error is raised (no mutex destroyed while held, no B1 hang with
// destructor kernels), an abort is attributed to its region whichever thread
// surfaces it, and a fatal error retires the policy so no second one cuts the
// exit handlers short. It waits on the legacy stream rather than the whole
// context (non-blocking streams are not waited for).
// No hazard carried on purpose.
#include <memory>

#include "core/policies/event_fence.h"

namespace stackcheck {

std::unique_ptr<Policy> MakeEventFenceSync(RuntimeContext& ctx) {
  EventFenceOptions options;
  options.wait_for_completion = true;
  return MakeEventFencePolicy(ctx, options);
}

}  // namespace stackcheck
