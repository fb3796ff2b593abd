#include "sim/trace/named_format.h"

#include "absl/strings/str_cat.h"
#include "sim/driver_api.h"
#include "sim/event_format.h"

namespace stackcheck::sim {

namespace {

std::string ActorName(std::uint32_t actor, absl::Span<const std::string> names) {
  if (actor == kNoActor) return "none";
  return actor < names.size() ? names[actor] : absl::StrCat("#", actor);
}

}  // namespace

std::string FormatEventNamed(const Event& e, absl::Span<const std::string> actor_names) {
  const auto api = [&] { return DriverCallName(static_cast<DriverCall>(e.a)); };
  const absl::string_view from_callback = (e.b & kCallFromCallback) != 0 ? " [from callback]" : "";
  switch (e.kind) {
    case EventKind::kDriverCall:
      return absl::StrCat(EventKindName(e.kind), " ", api(), " -> ", FormatResult(e.x),
                          from_callback);
    case EventKind::kDriverCallBlock:
      return absl::StrCat(EventKindName(e.kind), " ", api(), from_callback);
    case EventKind::kThreadStart:
      return absl::StrCat(EventKindName(e.kind), " parent ", ActorName(e.a, actor_names));
    case EventKind::kJoin:
      return absl::StrCat(EventKindName(e.kind), " ", ActorName(e.a, actor_names));
    case EventKind::kMutexBlock:
    case EventKind::kMutexUnlock:
    case EventKind::kMutexDestroy:
      return absl::StrCat(EventKindName(e.kind), " m", e.a, " owner ", ActorName(e.b, actor_names));
    default:
      return FormatEvent(e);
  }
}

}  // namespace stackcheck::sim
