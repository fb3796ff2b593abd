// mutex-discipline: a mutex is unlocked only by the thread that holds it (the
// V1a callback unlocking run()'s lock breaks this), never locked again by its
// own holder (a self-deadlock, the B1 exit path), never destroyed while held,
// and never used after it was destroyed.
#ifndef STACKCHECK_SIM_MONITORS_MUTEX_DISCIPLINE_H_
#define STACKCHECK_SIM_MONITORS_MUTEX_DISCIPLINE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/base/attributes.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

class MutexDisciplineMonitor final : public Monitor {
 public:
  static constexpr absl::string_view kName = "mutex-discipline";

  absl::string_view property() const override { return kName; }

  EventKindMask reads() const override {
    return Kinds({EventKind::kMutexCreate, EventKind::kMutexLock, EventKind::kMutexBlock,
                  EventKind::kMutexTryLockFail, EventKind::kMutexPass, EventKind::kMutexUnlock,
                  EventKind::kMutexDestroy});
  }
  void Reset() override {
    by_id_.clear();
    large_ids_.clear();
  }
  std::optional<Violation> OnEvent(absl::Span<const Event> events, const SimView& view) override;

 private:
  struct MutexState {
    std::uint32_t id = 0;
    ActorId owner = kNoActor;
    std::size_t locked_at = 0;  // event index of the current owner's lock
    bool destroyed = false;
    ActorId destroyed_by = kNoActor;
    std::size_t destroyed_at = 0;
    // A use after destroy was reported: the later ones are the same bug (an
    // execution goes on past a known one).
    bool use_after_destroy_reported = false;
  };

  // The state of mutex `id`, fresh (unlocked, alive) when first asked for.
  MutexState& StateOf(std::uint32_t id) {
    if (id < by_id_.size()) return by_id_[id];
    return NewStateOf(id);
  }
  MutexState& NewStateOf(std::uint32_t id);
  // The message for the newest event, which breaks the discipline on `m`:
  // formatted out of line, since most events break nothing.
  ABSL_ATTRIBUTE_NOINLINE ABSL_ATTRIBUTE_COLD std::optional<Violation> Complain(
      absl::Span<const Event> events, const SimView& view, const MutexState& m,
      bool after_destroy) const;

  // Indexed by id: the engine numbers mutexes densely from 0. Ids from
  // kMaxIndexedId up (hand-written streams only) go to a list.
  std::vector<MutexState> by_id_;
  std::vector<MutexState> large_ids_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_MUTEX_DISCIPLINE_H_
