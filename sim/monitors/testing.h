// Test support: a fake SimView and a builder for hand-written event streams.
#ifndef STACKCHECK_SIM_MONITORS_TESTING_H_
#define STACKCHECK_SIM_MONITORS_TESTING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "sim/event.h"
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
  Trace& Add(ActorId actor, EventKind kind, std::uint32_t a = 0, std::uint32_t b = 0,
             std::uint32_t c = 0, std::uint32_t d = 0, std::uint64_t x = 0, std::uint64_t y = 0) {
    Event e;
    e.time_ns = 100 * events_.size();
    e.actor = actor;
    e.kind = kind;
    e.a = a;
    e.b = b;
    e.c = c;
    e.d = d;
    e.x = x;
    e.y = y;
    events_.push_back(e);
    return *this;
  }
  Trace& Alloc(ActorId t, std::uint64_t ptr, std::uint64_t bytes) {
    return Add(t, EventKind::kAlloc, 0, 0, 0, 0, ptr, bytes);
  }
  Trace& Free(ActorId t, std::uint64_t ptr, std::uint64_t bytes) {
    return Add(t, EventKind::kFree, 0, 0, 0, 0, ptr, bytes);
  }
  // A kernel of `slots` warps of `per_warp` bytes each, stacks at `base`.
  Trace& Enqueue(ActorId t, std::uint32_t kernel, std::uint32_t stream, std::uint32_t region,
                 std::uint64_t base, std::uint32_t slots, std::uint64_t per_warp) {
    return Add(t, EventKind::kKernelEnqueue, kernel, stream, region, slots, base, per_warp);
  }
  Trace& Start(std::uint32_t kernel, std::uint32_t stream = 0) {
    return Add(kGpu, EventKind::kKernelStart, kernel, stream);
  }
  Trace& End(std::uint32_t kernel, std::uint32_t stream = 0, std::uint64_t result = 0) {
    return Add(kGpu, EventKind::kKernelEnd, kernel, stream, 0, 0, result);
  }
  Trace& RegionBegin(ActorId t, std::uint32_t region, std::uint64_t stacks_bytes = 0) {
    return Add(t, EventKind::kRegionBegin, 0, 0, region, 0, stacks_bytes);
  }
  Trace& RegionEnd(ActorId t, std::uint32_t region) {
    return Add(t, EventKind::kRegionEnd, 0, 0, region);
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
