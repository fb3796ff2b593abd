// no-crash: the process does not die of a signal. The runtime model calls
// Host::Crash where GCC 12.2's libgomp faults: a thread that resolved the
// device before another thread's exit finalized it calls the plugin, which
// reads the device table GOMP_OFFLOAD_fini_device freed (only with
// RuntimeOptions::shipped_target; core/runtime.h). The simulator logs the
// signal as kProcessKilled; this monitor turns it into a verdict naming the
// thread that faulted.
#ifndef STACKCHECK_SIM_MONITORS_NO_CRASH_H_
#define STACKCHECK_SIM_MONITORS_NO_CRASH_H_

#include <optional>

#include "sim/monitor.h"

namespace stackcheck::sim {

class NoCrashMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-crash";

  absl::string_view property() const override { return kName; }
  EventKindMask reads() const override { return KindBit(EventKind::kProcessKilled); }
  void Reset() override {}
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_NO_CRASH_H_
