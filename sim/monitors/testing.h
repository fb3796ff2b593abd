// Test support: a fake SimView and a builder for hand-written event streams.
#ifndef STACKCHECK_SIM_MONITORS_TESTING_H_
#define STACKCHECK_SIM_MONITORS_TESTING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/cu_result.h"
#include "sim/event.h"
#include "sim/event_payloads.h"
#include "sim/monitor.h"
#include "sim/monitors/bookkeeping_view.h"

namespace stackcheck::sim::monitor_testing {

// Actors 0..2 are host threads T0..T2, 3 is the callback thread CB, 4 the GPU.
inline constexpr ActorId kT0 = 0, kT1 = 1, kT2 = 2, kCb = 3, kGpu = 4;

class FakeSimView : public SimView {
 public:
  bool sticky_error() const override { return sticky; }
  absl::string_view ActorName(ActorId actor) const override {
    static const std::string kNames[] = {"T0", "T1", "T2", "CB", "GPU"};
    return actor < 5 ? absl::string_view(kNames[actor]) : "?";
  }
  absl::string_view MutexName(std::uint32_t mutex) const override {
    return mutex == 7 ? "stacks lock" : "";
  }
  // Message keys of the tests: 1 carries libgomp's abort hint, 2 does not.
  absl::string_view MessageText(std::uint32_t key) const override {
    if (key == kHintedMessage) {
      return "cuCtxSynchronize error: unspecified launch failure (perhaps abort was called)";
    }
    if (key == kBareMessage) return "cuMemcpyHtoD_v2 error: unspecified launch failure";
    return "";
  }
  static constexpr std::uint32_t kHintedMessage = 1;
  static constexpr std::uint32_t kBareMessage = 2;
  bool sticky = false;
};

// Appends events with a clock that advances 100 ns per event.
class Trace {
 public:
  // An event of a kind that carries `payload` (sim/event_payloads.h):
  // Add(kT1, EventKind::kMutexLock, payload::Mutex{7}).
  template <typename Payload>
  Trace& Add(ActorId actor, EventKind kind, const Payload& payload) {
    events_.push_back(Event(100 * events_.size(), actor, kind, payload));
    return *this;
  }
  // An event of a kind that carries nothing (kThreadEnd, kCtxDestroy).
  Trace& Add(ActorId actor, EventKind kind) {
    events_.push_back(Event(100 * events_.size(), actor, kind, payload::None{}));
    return *this;
  }
  Trace& Alloc(ActorId t, std::uint64_t ptr, std::uint64_t bytes) {
    return Add(t, EventKind::kAlloc, payload::Block{ptr, bytes});
  }
  Trace& Free(ActorId t, std::uint64_t ptr, std::uint64_t bytes) {
    return Add(t, EventKind::kFree, payload::Block{ptr, bytes});
  }
  // A kernel of `slots` warps of `per_warp` bytes each, stacks at `base`.
  Trace& Enqueue(ActorId t, std::uint32_t kernel, std::uint32_t stream, std::uint32_t region,
                 std::uint64_t base, std::uint32_t slots, std::uint64_t per_warp) {
    return Add(t, EventKind::kKernelEnqueue,
               payload::KernelLaunch{{kernel, stream, region, slots}, base, per_warp});
  }
  Trace& Start(std::uint32_t kernel, std::uint32_t stream = 0) {
    return Add(kGpu, EventKind::kKernelStart, payload::Kernel{kernel, stream});
  }
  Trace& End(std::uint32_t kernel, std::uint32_t stream = 0, CuResult result = CuResult::kSuccess) {
    return Add(kGpu, EventKind::kKernelEnd, payload::KernelEnd{{kernel, stream}, result});
  }
  Trace& RegionBegin(ActorId t, std::uint32_t region, std::uint64_t stacks_bytes = 0) {
    return Add(t, EventKind::kRegionBegin, payload::Region{region, stacks_bytes});
  }
  Trace& RegionEnd(ActorId t, std::uint32_t region) {
    return Add(t, EventKind::kRegionEnd, payload::Region{region});
  }

  const std::vector<Event>& events() const { return events_; }

 private:
  std::vector<Event> events_;
};

// Feeds the events one at a time, as the engine does, and returns the first
// violation; then (if none) asks OnQuiescence when `quiesce` is set.
inline std::optional<Violation> Feed(Monitor& monitor, const Trace& trace, const SimView& view,
                                     std::optional<bool> quiesce = std::nullopt) {
  monitor.Reset();
  BookkeepingView books(view);
  absl::Span<const Event> all(trace.events());
  for (std::size_t n = 1; n <= all.size(); ++n) {
    if (auto v = books.Deliver(monitor, all.first(n))) return v;
  }
  if (quiesce.has_value()) return monitor.OnQuiescence(all, books, *quiesce);
  return std::nullopt;
}

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;

}  // namespace stackcheck::sim::monitor_testing

#endif  // STACKCHECK_SIM_MONITORS_TESTING_H_
