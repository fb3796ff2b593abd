// no-driver-call-in-callback (SEM-09): a stream callback or host function makes
// no driver call at all. The engine marks such calls (kCallFromCallback in
// payload::Call's flags); independently, this monitor knows which actors are
// inside a callback from the kCallbackStart/End and kHostFnStart/End brackets,
// so a call is caught even if the mark were missing. A call that blocks
// forever (a cuStreamSynchronize waiting on the callback thread) is caught
// when it starts waiting.
#ifndef STACKCHECK_SIM_MONITORS_DRIVER_CALL_IN_CALLBACK_H_
#define STACKCHECK_SIM_MONITORS_DRIVER_CALL_IN_CALLBACK_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class DriverCallInCallbackMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-driver-call-in-callback";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kCallbackStart, EventKind::kHostFnStart, EventKind::kCallbackEnd,
                  EventKind::kHostFnEnd, EventKind::kDriverCall, EventKind::kDriverCallBlock});
  }
  // A call it complains about is bracketed or marked, and in the engine
  // every bracketed call is marked (CallFilter::marked_only).
  CallFilter calls() const override {
    CallFilter f;
    f.marked_only = true;
    return f;
  }
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  struct CallbackContext {
    bool active = false;
    bool host_fn = false;  // cuLaunchHostFunc rather than cuStreamAddCallback
    std::uint32_t stream = 0;
    std::uint32_t id = 0;
    std::size_t start_index = 0;
  };

  // The message for the newest event, a driver call from a callback
  // (`bracketed`: inside its actor's callback bracket); out of line, since
  // most calls are fine.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD std::optional<Violation> Complain(
      absl::Span<const Event> events, const SimView& view, bool bracketed) const;

  std::vector<CallbackContext> context_of_actor_;  // indexed by ActorId
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_DRIVER_CALL_IN_CALLBACK_H_
