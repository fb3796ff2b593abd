// event-fence-keep: event-fence whose cached block survives the program's own
// allocations, so that regions that map data keep the cache's saving.
//
// Why: GCC 11's soft limit (GOMP_OFFLOAD_alloc -> nvptx_stacks_free with
// force=false) frees a cached block above 128 MiB in every device_alloc. At
// libgomp's default geometry the block is larger than that (528 teams x 8
// warps x 128 KiB = 528 MiB on a 132-SM GPU), and a region that maps a
// variable allocates it first (gomp_map_vars -> GOMP_OFFLOAD_alloc), so the
// block is freed in every such region and the next run allocates it again:
// the cache saves nothing for real programs at the default geometry, in
// GCC 11-14 and in event-fence alike.
//
// The rule: device_alloc leaves the block where it is. It is given up only
// when it is in the way:
// - an allocation fails: the block is freed once our kernels are done with
//   it and the allocation is tried once more (GCC's own out-of-memory path,
//   nvptx_stacks_free with force=true, kept as is);
// - a region needs a larger block (freed once idle, then reallocated);
// - the device closes.
//
// The bound it keeps (CacheBound::kLargestRegion, checked by bounded-cache):
// one block, never larger than the largest block a region has needed; and
// no-avoidable-oom, checked beside it: no device_alloc fails while giving up
// the block would have made it fit. The soft limit was a proxy for that second
// guarantee; this policy keeps the guarantee itself. What it gives up: memory
// taken outside libgomp's allocator (the CUDA runtime, another process) does
// not make it release the block - nor does the soft limit, which only trims
// the block until the next region allocates it again.
//
// Everything else - no callbacks, the completion ledger, waits only to grow
// or free, exact abort attribution, the exit path - is event-fence's.
#include <memory>

#include "core/policies/event_fence.h"

namespace stackcheck {

std::unique_ptr<Policy> MakeEventFenceKeep(RuntimeContext& ctx) {
  EventFenceOptions options;
  options.keep_across_allocations = true;
  return MakeEventFencePolicy(ctx, options);
}

}  // namespace stackcheck
