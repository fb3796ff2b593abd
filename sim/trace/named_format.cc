#include "sim/trace/named_format.h"

#include "absl/strings/str_cat.h"
#include "sim/driver_api.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {

namespace {

std::string ActorName(std::uint32_t actor, absl::Span<const std::string> names) {
  if (actor == kNoActor) return "none";
  return actor < names.size() ? names[actor] : absl::StrCat("#", actor);
}

}  // namespace

std::string FormatEventNamed(const Event& e, absl::Span<const std::string> actor_names) {
  const auto from_callback = [](const payload::Call& call) -> absl::string_view {
    return (call.flags & kCallFromCallback) != 0 ? " [from callback]" : "";
  };
  switch (e.kind) {
    case EventKind::kDriverCall: {
      const auto call = e.As<payload::Call>();
      return absl::StrCat(EventKindName(e.kind), " ", DriverCallName(call.call), " -> ",
                          FormatResult(call.result), from_callback(call));
    }
    case EventKind::kDriverCallBlock: {
      const auto call = e.As<payload::Call>();
      return absl::StrCat(EventKindName(e.kind), " ", DriverCallName(call.call),
                          from_callback(call));
    }
    case EventKind::kThreadStart:
      return absl::StrCat(EventKindName(e.kind), " parent ",
                          ActorName(e.As<payload::ThreadStart>().parent, actor_names));
    case EventKind::kJoin:
      return absl::StrCat(EventKindName(e.kind), " ",
                          ActorName(e.As<payload::Join>().joined, actor_names));
    case EventKind::kMutexBlock:
    case EventKind::kMutexUnlock:
    case EventKind::kMutexDestroy: {
      const auto held = e.As<payload::MutexHeld>();
      return absl::StrCat(EventKindName(e.kind), " m", held.mutex, " owner ",
                          ActorName(held.owner, actor_names));
    }
    default:
      return FormatEvent(e);
  }
}

}  // namespace stackcheck::sim
