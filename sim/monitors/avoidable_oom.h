// no-avoidable-oom, GCC's contract for device_alloc (GOMP_OFFLOAD_alloc,
// GCC 11 and 12's plugin-nvptx.c): when cuMemAlloc fails, the plugin frees
// the stacks cache (nvptx_stacks_free (ptx_dev, true), under the stacks
// lock) and tries once more before reporting the failure (nvptx_alloc). So
// a device_alloc must not give up with out of memory while the cache still
// holds the block it held when the allocation began, if releasing that block
// would have made the request fit. Judged when the runtime reports the
// failure (kAllocGaveUp, RuntimeObserver::AllocationFailed, with the bytes
// the cache holds): the thread's last cuMemAlloc failed with out of memory,
// the thread freed no block since its device_alloc reported the cache
// (kCacheHeld, as each device_alloc does once its soft limit is applied),
// the request does not fit the free memory now, and it fits with the bytes
// the cache held both then and now added. A policy that released the cache
// and lost the memory to another thread's region meanwhile kept the
// contract; free memory another thread's free made since the attempt makes
// the failure a race with that free, not the cache's doing. On a poisoned
// context (SEM-05) nothing can be freed, and once a fatal error has been
// raised the process is ending (a policy may leave the device alone from
// then on, as libgomp does a finalized one): nothing is judged.
#ifndef STACKCHECK_SIM_MONITORS_AVOIDABLE_OOM_H_
#define STACKCHECK_SIM_MONITORS_AVOIDABLE_OOM_H_

#include <optional>
#include <vector>

#include "sim/monitor.h"

namespace stackcheck::sim {

class AvoidableOomMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-avoidable-oom";

  absl::string_view property() const override { return kName; }
  EventKindMask reads() const override {
    return Kinds({EventKind::kCacheHeld, EventKind::kAlloc, EventKind::kAllocFailed,
                  EventKind::kFree, EventKind::kAllocGaveUp, EventKind::kFatalReported});
  }
  void Reset() override {
    threads_.clear();
    exiting_ = false;
  }
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  // What one thread's device_alloc in progress has done.
  struct Attempt {
    ActorId actor = kNoActor;
    std::uint64_t cached_at_start = 0;  // its kCacheHeld
    bool freed = false;                 // a kFree since
    bool out_of_memory = false;         // its last cuMemAlloc failed so
  };
  // Few actors: a linear list.
  Attempt& Of(ActorId actor);

  std::vector<Attempt> threads_;
  bool exiting_ = false;  // a fatal error was raised
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_AVOIDABLE_OOM_H_
