// no-leak: when the context is torn down, every block the runtime allocated for
// itself has been freed. Blocks the user program allocated through
// device_alloc are the program's business, not the runtime's: a block counts as
// the runtime's when it was allocated by a thread inside run() or when a
// kernel's stacks were placed in it. After a sticky error (SEM-05) frees no
// longer work, so nothing is reported.
//
// Without a teardown (a scenario that does not close the device) the cache may
// legitimately keep its block; how much it keeps is bounded-cache's concern.
#ifndef STACKCHECK_SIM_MONITORS_LEAK_H_
#define STACKCHECK_SIM_MONITORS_LEAK_H_

#include <cstdint>
#include <optional>

#include "absl/base/attributes.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class LeakMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "no-leak";

  absl::string_view property() const override { return kName; }

  // Which blocks are the runtime's the device books keep (DeviceBooks::
  // IsRuntimeBlock): judged only at the teardown.
  EventKindMask reads() const override {
    return Kinds({EventKind::kStickyError, EventKind::kCtxDestroy});
  }
  bool reads_device_books() const override { return true; }
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  // The context teardown, once per execution: out of line.
  ABSL_ATTRIBUTE_NOINLINE std::optional<Violation> Teardown(absl::Span<const Event> events,
                                                            const SimView& view);
  bool sticky_seen_ = false;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_LEAK_H_
