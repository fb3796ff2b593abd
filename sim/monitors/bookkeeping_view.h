// Feeding monitors an event stream outside the engine (tests, benchmarks):
// a SimView that answers names and state from another view and keeps the
// device books itself, delivering each event as the engine does.
//
//   BookkeepingView view(names);
//   view.Reset();
//   for (n = 1..events.size()) if (auto v = view.Deliver(monitor, events.first(n))) ...
#ifndef STACKCHECK_SIM_MONITORS_BOOKKEEPING_VIEW_H_
#define STACKCHECK_SIM_MONITORS_BOOKKEEPING_VIEW_H_

#include <optional>

#include "absl/types/span.h"
#include "sim/device_books.h"
#include "sim/event.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class BookkeepingView final : public SimView {
 public:
  explicit BookkeepingView(const SimView& base) : base_(base) { set_device_books(&books_); }
  BookkeepingView(const BookkeepingView&) = delete;
  BookkeepingView& operator=(const BookkeepingView&) = delete;

  // Before each execution, with the monitors' Reset.
  void Reset() { books_.Reset(); }
  // Shows `monitor` the newest of `events` between the books' two halves
  // (DeviceBooks); the books take each event once, so with several monitors
  // deliver an event to all of them through DeliverTo's span.
  std::optional<Violation> Deliver(Monitor& monitor, absl::Span<const Event> events) {
    Monitor* one[] = {&monitor};
    return DeliverTo(one, events);
  }
  std::optional<Violation> DeliverTo(absl::Span<Monitor* const> monitors,
                                     absl::Span<const Event> events) {
    const Event& e = events.back();
    const std::size_t index = events.size() - 1;
    books_.ApplyBefore(e, index);
    for (Monitor* m : monitors) {
      if (auto v = m->OnEvent(events, *this)) return v;
    }
    books_.ApplyAfter(e, index);
    return std::nullopt;
  }

  bool sticky_error() const override { return base_.sticky_error(); }
  absl::string_view ActorName(ActorId actor) const override { return base_.ActorName(actor); }
  absl::string_view MutexName(std::uint32_t mutex) const override { return base_.MutexName(mutex); }
  absl::string_view MessageText(std::uint32_t key) const override { return base_.MessageText(key); }
  absl::string_view SharedName(std::uint32_t object) const override {
    return base_.SharedName(object);
  }
  std::uint64_t device_charged_bytes(std::uint64_t bytes) const override {
    return base_.device_charged_bytes(bytes);
  }
  std::uint64_t device_free_bytes() const override { return base_.device_free_bytes(); }
  std::optional<bool> guards_order_accesses() const override {
    return base_.guards_order_accesses();
  }

 private:
  const SimView& base_;
  DeviceBooks books_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_BOOKKEEPING_VIEW_H_
