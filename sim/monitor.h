// A monitor holds one invariant over the event stream. The engine feeds every
// event to every enabled monitor as it is appended, and asks each one again at
// quiescence (no actor runnable) and at the end of the execution. The first
// violation stops the execution; the trace up to that event is the history.
#ifndef STACKCHECK_SIM_MONITOR_H_
#define STACKCHECK_SIM_MONITOR_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "sim/driver_api.h"
#include "sim/event.h"

namespace stackcheck::sim {

// One waiting actor of a deadlock, as the wait-for graph describes it.
struct WaitLink {
  ActorId waiter = 0;
  std::string text;  // "T0 waits for mutex 'stacks lock' held by T1"
};

struct Violation {
  std::string property;         // the catalogue name, e.g. "no-use-after-free"
  std::string message;          // what broke, naming actors and resources
  std::size_t event_index = 0;  // the event that broke it
  // The violation was found at the end of the execution (quiescence or
  // exit), not at an event of its own.
  bool at_end = false;
  // The earlier event that set the violation up, when the monitor knows one:
  // the free under a use-after-free (or the enqueue a free pulled the block
  // from under), the allocation of a leaked block.
  std::optional<std::size_t> cause_index;
  // The event that broke it when the monitor judges at the end (data-race:
  // the later of the two accesses); the fingerprint names it instead of
  // "at the end".
  std::optional<std::size_t> site_index;
  // The two events are a pair whose order says nothing about the bug (the
  // two accesses of a data race): the fingerprint names them sorted.
  bool unordered_sites = false;
  // no-deadlock: the wait-for cycle in order, one link per waiting actor, or
  // every wait when there is no cycle (`waits_form_cycle` false).
  std::vector<WaitLink> waits;
  bool waits_form_cycle = false;
  // What identifies the bug rather than the property (sim/fingerprint.h):
  // set by the engine on every violation it returns.
  std::string fingerprint;
};

class DeviceBooks;  // sim/device_books.h

// Read-only facts the engine offers monitors beyond the event stream.
class SimView {
 public:
  virtual ~SimView() = default;
  // The context is poisoned (SEM-05): blocks may be unfreeable from here on.
  virtual bool sticky_error() const = 0;
  virtual absl::string_view ActorName(ActorId actor) const = 0;
  // The name the runtime gave a mutex (Host::NewMutex), e.g. "stacks lock",
  // for messages; empty when unknown.
  virtual absl::string_view MutexName(std::uint32_t /*mutex*/) const { return {}; }
  // The text of a message the runtime printed (field `d` of kFatalReported
  // and kErrorReported); empty when unknown.
  virtual absl::string_view MessageText(std::uint32_t /*key*/) const { return {}; }
  // The name of shared state (`payload::SharedAccess`'s object, core/shared.h),
  // e.g. "stacks block"; empty when unknown.
  virtual absl::string_view SharedName(std::uint32_t /*object*/) const { return {}; }
  // Device memory: what a cuMemAlloc of `bytes` takes (the allocation
  // granularity's rounding), and the bytes free now.
  virtual std::uint64_t device_charged_bytes(std::uint64_t bytes) const { return bytes; }
  virtual std::uint64_t device_free_bytes() const { return 0; }
  // Whether the guards order every shared access logged so far: each was
  // made by the holder of its guard (or was a snapshot), and each unlock by
  // the mutex's holder (data-race then needs no clocks). nullopt: this view
  // does not keep track, and a monitor must read the trace.
  virtual std::optional<bool> guards_order_accesses() const { return std::nullopt; }
  // The memory ledger and the kernels in flight up to the newest event, kept
  // once for the monitors whose reads_device_books() is true
  // (sim/device_books.h says who keeps them, and when). Not
  // virtual, since it is read at most events. A view that keeps none stops
  // the program here rather than show empty books: feed monitors outside
  // the engine through BookkeepingView (sim/monitors/bookkeeping_view.h).
  const DeviceBooks& device_books() const {
    if (books_ == nullptr) {
      std::fputs("stackcheck: a monitor read device books that this view does not keep\n", stderr);
      std::abort();
    }
    return *books_;
  }

 protected:
  // The view that keeps the books says where they are.
  void set_device_books(const DeviceBooks* books) { books_ = books; }

 private:
  const DeviceBooks* books_ = nullptr;
};

// A set of event kinds, bit i for EventKind i.
using EventKindMask = std::uint64_t;
inline constexpr EventKindMask kAllEventKinds = ~EventKindMask{0};
static_assert(static_cast<int>(EventKind::kSharedAccess) < 64,
              "EventKindMask has one bit per kind");

constexpr EventKindMask KindBit(EventKind kind) {
  return EventKindMask{1} << static_cast<int>(kind);
}
constexpr EventKindMask Kinds(std::initializer_list<EventKind> kinds) {
  EventKindMask mask = 0;
  for (EventKind k : kinds) mask |= KindBit(k);
  return mask;
}

// Which driver calls a monitor acts on, among the kDriverCall and
// kDriverCallBlock events its reads() names. The engine skips the others
// (about a third of an execution's monitor calls are driver calls that no
// monitor acts on); every field is a promise that OnEvent ignores them.
struct CallFilter {
  // Bit i: DriverCall i (`payload::Call`); calls numbered 64 and up always pass.
  std::uint64_t apis = ~std::uint64_t{0};
  // kDriverCall events only when the call returned kSuccess (field x).
  bool succeeded_only = false;
  // Only calls marked kCallFromCallback (field b). The engine marks every call
  // a callback thread makes (SimDevice::Call), and only callback threads open
  // callback brackets, so a call from inside a bracket always passes.
  bool marked_only = false;
};

inline constexpr std::uint64_t CallBit(DriverCall call) {
  return std::uint64_t{1} << static_cast<int>(call);
}

class Monitor {
 public:
  virtual ~Monitor() = default;
  virtual absl::string_view property() const = 0;
  // The event kinds OnEvent acts on; the engine may skip calling it for any
  // other kind (MonitorSet does). Declared beside the code that reads them:
  // a kind missing here blinds the monitor.
  virtual EventKindMask reads() const { return kAllEventKinds; }
  // The driver calls OnEvent acts on (see CallFilter); the engine skips the
  // others. Declared beside the code that reads them, like reads().
  virtual CallFilter calls() const { return CallFilter{}; }
  // Whether OnEvent reads the view's device_books(); the engine keeps them
  // only when some monitor does.
  virtual bool reads_device_books() const { return false; }
  // The monitors an engine that routes events by kind itself calls in this
  // one's place, in order: this one, or a set's members (see MonitorSet).
  // Calling them one by one must be the same as calling this one.
  virtual void AppendMembers(std::vector<Monitor*>* out) { out->push_back(this); }
  // Called before each execution.
  virtual void Reset() = 0;
  // `events` is the trace so far; its last element is the new event.
  virtual std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) = 0;
  // No actor can run. `all_finished` tells quiescence (everyone done) from a
  // stuck state; deadlock reporting itself belongs to the engine, which knows
  // the wait-for graph.
  virtual std::optional<Violation> OnQuiescence(absl::Span<const Event> /*events*/,
                                                const SimView& /*view*/, bool /*all_finished*/) {
    return std::nullopt;
  }
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITOR_H_
