// Shared<T>: state that several threads (host threads, the driver's callback
// thread) touch, declared as such so that the backend can check it.
//
// Every access goes through Read() or Write(), which tell the Host first. On
// real threads (Host::DeclareShared returns kUntrackedShared) that is one
// predictable branch and the plain access. On the simulator each access is an
// event (actor, object, read or write) the data-race monitor checks against
// happens-before; an access made without the declared guard held is also a
// scheduling point that conflicts with every step taken while holding the
// guard, so the search interleaves it with other threads' accesses (see
// sim/strategies/README.md, "Shared state").
//
// Rules for the code that uses it:
// - One Read()/Write() stands for one access: a reference it returns is used
//   before the thread's next scheduling point (Device or Host call) or, under
//   the guard, until the guard is released - not past either.
// - Write() when anything is changed; Read() only observes.
// - State owned by one thread (a local) or written once before other threads
//   exist needs no Shared. An atomic snapshot (a std::atomic kept beside it,
//   read without the guard) is not a race, but what it reads depends on
//   which guarded writes came first: read it after Snapshot().
#ifndef STACKCHECK_CORE_SHARED_H_
#define STACKCHECK_CORE_SHARED_H_

#include <utility>

#include "absl/strings/string_view.h"
#include "core/host.h"

namespace stackcheck {

template <typename T>
class Shared {
 public:
  // Owned by one thread: never reported (the same type can then be used for
  // a local and for a shared copy).
  Shared() = default;
  // Shared among threads, under `guard` (nullptr: no mutex is meant to guard
  // it). `name` appears in race reports, e.g. "stacks block".
  Shared(Host& host, absl::string_view name, const Mutex* guard, T initial = T())
      : value_(std::move(initial)), id_(host.DeclareShared(name, guard)) {
    if (id_ != kUntrackedShared) host_ = &host;
  }
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;

  const T& Read() const {
    if (host_ != nullptr) host_->SharedAccess(id_, /*write=*/false);
    return value_;
  }
  T& Write() {
    if (host_ != nullptr) host_->SharedAccess(id_, /*write=*/true);
    return value_;
  }
  // Just before an atomic snapshot of the state is read from any thread (see
  // above): on the simulator a scheduling point ordered against the guarded
  // writes when the guard is not held, never a reported race.
  void Snapshot() const {
    if (host_ != nullptr) host_->SharedSnapshot(id_);
  }

 private:
  T value_{};
  Host* host_ = nullptr;  // null: not tracked (real threads, thread-owned)
  SharedId id_ = kUntrackedShared;
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_SHARED_H_
