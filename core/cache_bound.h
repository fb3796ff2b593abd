// The memory bound a stacks cache promises, which the bounded-cache property
// checks (sim/monitors/bounded_cache.h, hardware/run_observer.h). Each policy
// names its own in the registry (core/policies/registry.h).
#ifndef STACKCHECK_CORE_CACHE_BOUND_H_
#define STACKCHECK_CORE_CACHE_BOUND_H_

namespace stackcheck {

enum class CacheBound {
  // GCC 11's contract (GOMP_OFFLOAD_alloc -> nvptx_stacks_free with
  // force=false): once device_alloc has applied the soft limit, the cache
  // holds at most max(soft limit, the largest block a running region needs).
  kSoftLimit,
  // The contract of a cache given up only when an allocation fails (and at
  // close): when device_alloc reports it, the cache holds at most max(soft
  // limit, the largest block any region begun so far has needed) - one block,
  // never more than a region has asked for. What keeps it from starving the
  // program is no-avoidable-oom, checked beside it: an allocation that fails
  // while the cache could make room frees the cache and retries.
  kLargestRegion,
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_CACHE_BOUND_H_
