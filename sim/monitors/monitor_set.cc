#include "sim/monitors/monitor_set.h"

#include <utility>

namespace stackcheck::sim {

MonitorSet::MonitorSet(std::vector<std::unique_ptr<Monitor>> monitors)
    : monitors_(std::move(monitors)) {
  for (std::size_t i = 0; i < monitors_.size(); ++i) {
    const EventKindMask mask = monitors_[i]->reads();
    reads_ |= mask;
    reads_books_ |= monitors_[i]->reads_device_books();
    for (int k = 0; k < kKindSlots; ++k) {
      if ((mask >> k) & 1) by_kind_[k].push_back(monitors_[i].get());
    }
  }
}

void MonitorSet::AppendMembers(std::vector<Monitor*>* out) {
  for (auto& m : monitors_) m->AppendMembers(out);
}

void MonitorSet::Reset() {
  for (auto& m : monitors_) m->Reset();
}

std::optional<Violation> MonitorSet::OnEvent(absl::Span<const Event> events, const SimView& view) {
  const int kind = static_cast<int>(events.back().kind);
  if (kind >= kKindSlots) return std::nullopt;
  for (Monitor* m : by_kind_[kind]) {
    if (auto v = m->OnEvent(events, view)) return v;
  }
  return std::nullopt;
}

std::optional<Violation> MonitorSet::OnQuiescence(absl::Span<const Event> events,
                                                  const SimView& view, bool all_finished) {
  for (auto& m : monitors_) {
    if (auto v = m->OnQuiescence(events, view, all_finished)) return v;
  }
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<Monitor>> MakeMonitorSet(
    absl::Span<const absl::string_view> properties, const MonitorParams& params) {
  std::vector<std::unique_ptr<Monitor>> monitors;
  for (absl::string_view name : properties) {
    absl::StatusOr<std::unique_ptr<Monitor>> m = MakeMonitor(name, params);
    if (!m.ok()) return m.status();
    monitors.push_back(*std::move(m));
  }
  return std::make_unique<MonitorSet>(std::move(monitors));
}

}  // namespace stackcheck::sim
