#include "core/policies/registry.h"

namespace stackcheck {

// Each factory is defined in its policy's own file.
std::unique_ptr<Policy> MakeV0NoCache(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeV1aCallbackUnlock(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeV1bCallbackLock(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeV2Gcc11(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeV3Trunk(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeEventFence(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeEventFenceSync(RuntimeContext& ctx);
std::unique_ptr<Policy> MakeEventFenceKeep(RuntimeContext& ctx);

namespace {

constexpr PolicyInfo kPolicies[] = {
    {"v0-nocache", "before caching (to 2020): alloc, launch, ctx sync, free on every region",
     &MakeV0NoCache},
    {"v1a-callback-unlock",
     "seed patch, reading A: run keeps the lock while the kernel runs, a stream "
     "callback unlocks it and reports aborts",
     &MakeV1aCallbackUnlock, /*accepts_async_completion=*/true},
    {"v1b-callback-lock",
     "seed patch, reading B: run marks the block busy, a stream callback takes the "
     "lock to mark it free; growth holds the lock",
     &MakeV1bCallbackLock, /*accepts_async_completion=*/true},
    {"v2-gcc11",
     "GCC 11: lock held across launch and ctx sync, 128 MiB soft limit in device_alloc, "
     "free-and-retry on OOM, freed at close",
     &MakeV2Gcc11},
    {"v3-trunk",
     "trunk (2024-26): v2 plus ctor/dtor kernels that take the stacks lock; "
     "fatal -> exit handlers -> close (B1)",
     &MakeV3Trunk},
    {"event-fence",
     "ours: no callbacks, no wait on launch; each kernel writes its completion "
     "to a host ledger that attributes aborts; waits only to grow or free",
     &MakeEventFence, /*accepts_async_completion=*/true},
    {"event-fence-sync",
     "ours, synchronous: event-fence that also waits for its kernel before run "
     "returns (the region has completed)",
     &MakeEventFenceSync},
    {"event-fence-keep",
     "ours, for regions that map data: event-fence whose block survives the program's "
     "allocations; freed only when one fails, to grow, or at close",
     &MakeEventFenceKeep, /*accepts_async_completion=*/true, CacheBound::kLargestRegion},
};

}  // namespace

absl::Span<const PolicyInfo> AllPolicies() { return kPolicies; }

const PolicyInfo* FindPolicy(absl::string_view name) {
  for (const PolicyInfo& p : kPolicies) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace stackcheck
