#include "properties/catalogue.h"

namespace stackcheck::properties {
namespace {

constexpr std::uint8_t kBoth = kSimBackend | kCudaBackend;

// Hardware can observe what leaves a trace the real runner sees: stack-slot tag
// checks in the PTX kernel (overlap, reuse), cuMemGetInfo at close (leak), a
// timeout (deadlock, progress), the fatal message (attribution), the owner-aware
// Mutex (discipline), the cache observer (bounded cache), the stream state when
// run returns (sync completion), the backend's own count of driver calls made
// on the callback thread (driver call in callback). Whether a block was freed
// under a kernel without the kernel noticing (cuMemFree waits for the device,
// SEM-11: reuse shows as overlap), two accesses were unordered (data-race), or
// an allocation gave up while the cache could have made room (avoidable OOM),
// only the simulator can tell; a crash would end the real runner itself.
// hardware/hardware_judgements.cc judges exactly the properties marked kBoth
// (hardware_judgements_test).
constexpr PropertyInfo kProperties[] = {
    {"no-use-after-free",
     "no kernel uses a stacks block after it was freed, and nothing frees a block an unfinished "
     "kernel uses",
     Checker::kMonitor, "no-use-after-free", kSimBackend, false},
    {"no-stack-overlap", "no two kernels in flight at the same time use overlapping stack slots",
     Checker::kMonitor, "no-stack-overlap", kBoth, false},
    {"no-leak",
     "every block allocated is freed by device close (blocks made unfreeable by a sticky error "
     "excepted)",
     Checker::kMonitor, "no-leak", kBoth, false},
    {"no-driver-call-in-callback",
     "stream callbacks and host functions make no CUDA driver calls (SEM-09)", Checker::kMonitor,
     "no-driver-call-in-callback", kBoth, false},
    {"no-deadlock",
     "some actor can always move until every host thread has finished (wait-for cycle reported)",
     Checker::kEngine, "", kBoth, false},
    {"mutex-discipline",
     "a mutex is unlocked only by its owner, never relocked by it, never destroyed while held",
     Checker::kMonitor, "mutex-discipline", kBoth, false},
    {"abort-attribution", "a device abort is reported, and against the region whose kernel aborted",
     Checker::kMonitor, "abort-attribution", kBoth, false},
    {"bounded-cache",
     "after each device_alloc the cache holds <= max(soft limit, largest block a region running "
     "by happens-before needs)",
     Checker::kMonitor, "bounded-cache", kBoth, false},
    {"progress", "every execution finishes within the step bound (no livelock or endless polling)",
     Checker::kEngine, "", kBoth, false},
    {"sync-completion",
     "a region's kernel has completed when run returns (deviation a policy may accept)",
     Checker::kMonitor, "sync-completion", kBoth, true},
    {"data-race",
     "no two accesses to shared policy or runtime state, one a write, on different threads "
     "unordered by happens-before",
     Checker::kMonitor, "data-race", kSimBackend, false},
    {"no-avoidable-oom",
     "a device_alloc fails with out of memory only if releasing the stacks cache would not make it "
     "fit",
     Checker::kMonitor, "no-avoidable-oom", kSimBackend, false},
    {"no-crash",
     "the process does not die of a signal (GCC 12.2's libgomp calling the plugin on a device "
     "another thread's exit finalized, with --shipped_target)",
     Checker::kMonitor, "no-crash", kSimBackend, false},
};

}  // namespace

absl::Span<const PropertyInfo> AllProperties() { return kProperties; }

const PropertyInfo* FindProperty(absl::string_view name) {
  for (const PropertyInfo& p : kProperties) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace stackcheck::properties
