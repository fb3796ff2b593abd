#include "sim/monitors/mutex_discipline.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
namespace {

// "mutex 'stacks lock'" when the engine knows its name, else "mutex 3".
std::string MutexLabel(const SimView& view, std::uint32_t id) {
  const absl::string_view name = view.MutexName(id);
  return name.empty() ? absl::StrCat("mutex ", id) : absl::StrCat("mutex '", name, "'");
}

}  // namespace

MutexDisciplineMonitor::MutexState& MutexDisciplineMonitor::NewStateOf(std::uint32_t id) {
  if (id < kMaxIndexedId) {
    for (auto i = static_cast<std::uint32_t>(by_id_.size()); i <= id; ++i) {
      MutexState fresh;
      fresh.id = i;
      by_id_.push_back(fresh);
    }
    return by_id_[id];
  }
  for (MutexState& m : large_ids_) {
    if (m.id == id) return m;
  }
  MutexState fresh;
  fresh.id = id;
  large_ids_.push_back(fresh);
  return large_ids_.back();
}

std::optional<Violation> MutexDisciplineMonitor::OnEvent(absl::Span<const Event> events,
                                                         const SimView& view) {
  const Event& e = events.back();
  const std::size_t index = events.size() - 1;
  switch (e.kind) {
    case EventKind::kMutexCreate: {
      const std::uint32_t mutex = e.As<payload::Mutex>().mutex;
      MutexState& m = StateOf(mutex);
      m = MutexState{};
      m.id = mutex;
      return std::nullopt;
    }
    case EventKind::kMutexLock:
    case EventKind::kMutexBlock:
    case EventKind::kMutexTryLockFail:
    case EventKind::kMutexPass:
    case EventKind::kMutexUnlock:
    case EventKind::kMutexDestroy:
      break;
    default:
      return std::nullopt;
  }

  MutexState& m = StateOf(e.As<payload::Mutex>().mutex);
  if (m.destroyed) {
    if (m.use_after_destroy_reported) return std::nullopt;
    m.use_after_destroy_reported = true;
    return Complain(events, view, m, /*after_destroy=*/true);
  }
  switch (e.kind) {
    case EventKind::kMutexLock:
      m.owner = e.actor;
      m.locked_at = index;
      return std::nullopt;
    case EventKind::kMutexBlock: {
      // The owner the engine saw; a holder waiting on itself will wait
      // forever.
      const ActorId owner = e.As<payload::MutexHeld>().owner;
      if (owner != kNoActor && owner == e.actor) return Complain(events, view, m, false);
      return std::nullopt;
    }
    case EventKind::kMutexTryLockFail:
    case EventKind::kMutexPass:
      return std::nullopt;
    case EventKind::kMutexUnlock:
      m.owner = kNoActor;
      if (e.As<payload::MutexHeld>().owner == e.actor) return std::nullopt;  // the owner before
      return Complain(events, view, m, false);
    case EventKind::kMutexDestroy:
      // glibc destroys a free mutex; a held one stays locked and alive
      // (EBUSY), so its owner's unlock is no use after destroy.
      if (e.As<payload::MutexHeld>().owner == kNoActor) {
        m.destroyed = true;
        m.destroyed_by = e.actor;
        m.destroyed_at = index;
        return std::nullopt;
      }
      return Complain(events, view, m, false);
    default:
      return std::nullopt;
  }
}

std::optional<Violation> MutexDisciplineMonitor::Complain(absl::Span<const Event> events,
                                                          const SimView& view, const MutexState& m,
                                                          bool after_destroy) const {
  const Event& e = events.back();
  const std::string who = Who(view, e.actor);
  const std::string mutex = MutexLabel(view, m.id);
  if (after_destroy) {
    return ViolationAtLast(
        kName, events,
        absl::StrCat(who, " used ", mutex, " (", EventKindName(e.kind), ") after ",
                     Who(view, m.destroyed_by), " destroyed it at event ", m.destroyed_at));
  }
  switch (e.kind) {
    case EventKind::kMutexBlock:
      return ViolationAtLast(
          kName, events,
          absl::StrCat(who, " locks ", mutex, " again while holding it since event ", m.locked_at,
                       " (relock by the owner: it waits for itself)"));
    case EventKind::kMutexUnlock: {
      const ActorId owner = e.As<payload::MutexHeld>().owner;
      if (owner == kNoActor) {
        return ViolationAtLast(kName, events,
                               absl::StrCat(who, " unlocked ", mutex, ", which nobody held"));
      }
      return ViolationAtLast(
          kName, events,
          absl::StrCat(who, " unlocked ", mutex, ", held by ", Who(view, owner), " since event ",
                       m.locked_at, " (unlock by a thread that does not own it)"));
    }
    default: {  // kMutexDestroy
      const ActorId owner = e.As<payload::MutexHeld>().owner;
      return ViolationAtLast(
          kName, events,
          absl::StrCat(who, " destroyed ", mutex, " while ",
                       owner == e.actor ? std::string("holding it")
                                        : absl::StrCat(Who(view, owner), " holds it"),
                       " (locked at event ", m.locked_at, ")"));
    }
  }
}

}  // namespace stackcheck::sim
