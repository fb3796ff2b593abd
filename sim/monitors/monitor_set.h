// Several monitors behind one Monitor, calling each only for the event kinds
// it reads. With all eight monitors enabled that halves the per-event cost
// (see monitors_benchmark): most events concern two or three of them.
//
//   auto set = MakeMonitorSet(MonitorNames(), params);   // or a subset
//   Simulator sim(config, {std::move(*set)});             // one monitor
//
// Violations are the inner monitors', property name included, and come out
// exactly as if the monitors were called one by one in the given order.
#ifndef STACKCHECK_SIM_MONITORS_MONITOR_SET_H_
#define STACKCHECK_SIM_MONITORS_MONITOR_SET_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "sim/monitor.h"
#include "sim/monitors/monitors.h"

namespace stackcheck::sim {

class MonitorSet final : public Monitor {
 public:
  // Each monitor is called only for the kinds its reads() lists
  // (OnQuiescence always reaches every monitor).
  explicit MonitorSet(std::vector<std::unique_ptr<Monitor>> monitors);

  absl::string_view property() const override { return "monitor-set"; }
  // Every kind some inner monitor reads.
  EventKindMask reads() const override { return reads_; }
  bool reads_device_books() const override { return reads_books_; }
  void AppendMembers(std::vector<Monitor*>* out) override;
  void Reset() override;
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;
  std::optional<Violation> OnQuiescence(absl::Span<const Event> events, const SimView& view,
                                        bool all_finished) override;

 private:
  static constexpr int kKindSlots = 64;

  std::vector<std::unique_ptr<Monitor>> monitors_;
  EventKindMask reads_ = 0;
  bool reads_books_ = false;
  // For each event kind, the monitors that read it, in the given order.
  std::array<absl::InlinedVector<Monitor*, 4>, kKindSlots> by_kind_;
};

// The named monitors (see MakeMonitor) in one MonitorSet; the first unknown
// name is an InvalidArgument error.
absl::StatusOr<std::unique_ptr<Monitor>> MakeMonitorSet(
    absl::Span<const absl::string_view> properties, const MonitorParams& params);

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_MONITOR_SET_H_
