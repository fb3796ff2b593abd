// abort-attribution, judged on what a user sees: when a kernel aborts (ends
// with an error code in a healthy context, SEM-04, which then becomes
// sticky), the first message the runtime prints with the abort's code - a
// fatal error or an error the caller then acts on - says that a kernel
// aborted (carries kAbortHint, as libgomp's failed region wait does), and
// when it is a fatal error that names a region (FatalReported's region), that
// region is the one whose kernel aborted. libgomp's plain messages carry no
// region identity, so an error message's region is not judged. A first
// message without the hint, or blaming another region, is reported at once;
// an abort no message ever reports is reported at the earliest moment the
// process can end: when the first exit's handlers are done (the process ends
// later, once no other actor can move, but could end at any step from there:
// the search puts that moment before and after every message and trap), at
// an end that comes at once (a real program's exit, a return from main), or
// at quiescence with every actor finished.
#ifndef STACKCHECK_SIM_MONITORS_ABORT_ATTRIBUTION_H_
#define STACKCHECK_SIM_MONITORS_ABORT_ATTRIBUTION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "core/cu_result.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class AbortAttributionMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "abort-attribution";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kKernelEnd, EventKind::kStickyError, EventKind::kFatalReported,
                  EventKind::kErrorReported, EventKind::kExitHandlersDone,
                  EventKind::kProcessExit});
  }
  // An aborted kernel's region: DeviceBooks::just_ended.
  bool reads_device_books() const override { return true; }
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;
  std::optional<Violation> OnQuiescence(absl::Span<const Event> events, const SimView& view,
                                        bool all_finished) override;

 private:
  struct Abort {
    std::uint32_t kernel = 0;
    std::uint32_t region = 0;
    CuResult code = CuResult::kSuccess;
    std::size_t index = 0;  // the kKernelEnd
  };

  // Out of line (rare): judges the first message after an abort; the
  // violation for an abort nobody reported, if there is one.
  ABSL_ATTRIBUTE_NOINLINE std::optional<Violation> Judge(absl::Span<const Event> events,
                                                         const SimView& view);
  ABSL_ATTRIBUTE_NOINLINE std::optional<Violation> Unreported(absl::Span<const Event> events) const;

  std::vector<Abort> aborts_;
  bool judged_ = false;    // the first message with the abort's code was judged
  bool poisoned_ = false;  // a kStickyError was seen
  // The process could have ended at a kExitHandlersDone already: the end's
  // verdict was given there.
  bool end_judged_ = false;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_ABORT_ATTRIBUTION_H_
