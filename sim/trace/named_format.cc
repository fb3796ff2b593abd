#include "sim/trace/named_format.h"

#include "absl/strings/str_cat.h"
#include "sim/driver_api.h"
#include "sim/event_format.h"

namespace stackcheck::sim {

std::string FormatEventNamed(const Event& e) {
  const auto api = [&] { return DriverApiName(static_cast<DriverApi>(e.a)); };
  const absl::string_view from_callback =
      (e.b & kCallFromCallback) != 0 ? " [from callback]" : "";
  switch (e.kind) {
    case EventKind::kDriverCall:
      return absl::StrCat(EventKindName(e.kind), " ", api(), " -> ",
                          FormatResult(e.x), from_callback);
    case EventKind::kDriverCallBlock:
      return absl::StrCat(EventKindName(e.kind), " ", api(), from_callback);
    default:
      return FormatEvent(e);
  }
}

}  // namespace stackcheck::sim
