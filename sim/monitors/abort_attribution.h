// abort-attribution: when a kernel aborts (ends with an error code in a
// healthy context, SEM-04, which then becomes sticky), the
// runtime reports a fatal error against that kernel's region, and never blames
// another region for it. A fatal error carrying the abort's code but naming a
// region none of whose kernels aborted is reported at once; an abort for which
// no fatal error names the region is reported when the execution ends (at
// process exit, or at quiescence with every actor finished).
#ifndef STACKCHECK_SIM_MONITORS_ABORT_ATTRIBUTION_H_
#define STACKCHECK_SIM_MONITORS_ABORT_ATTRIBUTION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/monitor.h"

namespace stackcheck::sim {

class AbortAttributionMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "abort-attribution";

  absl::string_view property() const override { return kName; }
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events,
                                   const SimView& view) override;
  std::optional<Violation> OnQuiescence(absl::Span<const Event> events,
                                        const SimView& view,
                                        bool all_finished) override;

 private:
  struct Abort {
    std::uint32_t kernel = 0;
    std::uint32_t region = 0;
    std::uint64_t code = 0;
    std::size_t index = 0;  // the kKernelEnd
  };

  // The violation for an abort nobody reported, if there is one.
  std::optional<Violation> Unreported(absl::Span<const Event> events) const;

  // Region tag of each kernel in flight: (kernel id, region).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> kernel_regions_;
  std::vector<Abort> aborts_;
  bool reported_ = false;  // a fatal error named an aborted region
  bool poisoned_ = false;  // a kStickyError was seen
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_ABORT_ATTRIBUTION_H_
