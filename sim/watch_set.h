// The engine's run queue: which actors the next scheduling point must look
// at. An actor that cannot move leaves the set until the event that can
// unblock it - a device change (GPU streams, device waits), a mutex becoming
// free (mutex and wake-up waits), an actor finishing (joins), a change to the
// callback queue (the idle serial callback thread). Most of an execution's
// actors wait most of the time, so a scan looks at few. Only actor ids below
// 64 are tracked; the scheduler scans every actor when there are more.
#ifndef STACKCHECK_SIM_WATCH_SET_H_
#define STACKCHECK_SIM_WATCH_SET_H_

#include <cstdint>

#include "sim/actor.h"

namespace stackcheck::sim {

class WatchSet {
 public:
  // Which event puts an actor that cannot move back into the set.
  enum WakeOn : std::uint8_t {
    kAlwaysWatched,  // runnable host fibers (and a kNone wait): never idle
    kWakeOnDevice,   // GPU streams, device waits
    kWakeOnMutex,
    kWakeOnJoin,
    kWakeOnCallbackWork,
    kWakeOnNothing,
    kWakeOnCount,
  };
  static WakeOn For(const WaitReason& wait, bool gpu) {
    switch (wait.kind) {
      case WaitKind::kNone:
        return gpu ? kWakeOnDevice : kAlwaysWatched;
      case WaitKind::kMutex:
      case WaitKind::kWakeup:  // woken by WakeQueue, which watches them
        return kWakeOnMutex;
      case WaitKind::kJoin:
        return kWakeOnJoin;
      case WaitKind::kCallbackWork:
        return kWakeOnCallbackWork;
      case WaitKind::kStreamIdle:
      case WaitKind::kAllStreamsIdle:
      case WaitKind::kAllStreamsIdleOrFault:
      case WaitKind::kEvent:
        return kWakeOnDevice;
      case WaitKind::kRest:  // no event wakes it: the scheduler's expiring-wait scan picks it
        return kWakeOnNothing;
    }
    return kWakeOnDevice;
  }

  // Empties the set, for a new execution.
  void Clear() {
    pending_ = 0;
    for (std::uint64_t& set : waiting_for_) set = 0;
    for (std::uint8_t& wake : filed_under_) wake = kAlwaysWatched;
  }
  // Puts `id` into the set (it is looked at once at least, whatever it waits
  // for) and files it under the event that wakes it when it is idle.
  void Watch(ActorId id, WakeOn wake) {
    if (id >= 64) return;
    const std::uint64_t bit = Bit(id);
    waiting_for_[filed_under_[id]] &= ~bit;
    filed_under_[id] = wake;
    waiting_for_[wake] |= bit;
    pending_ |= bit;
  }
  // A finished actor: never looked at again; whoever joins it may go on.
  void Unwatch(ActorId id) {
    if (id < 64) {
      const std::uint64_t bit = Bit(id);
      waiting_for_[filed_under_[id]] &= ~bit;
      filed_under_[id] = kAlwaysWatched;
      pending_ &= ~bit;
    }
    Wake(kWakeOnJoin);
  }
  // The event happened: every actor filed under it is looked at again.
  void Wake(WakeOn event) { pending_ |= waiting_for_[event]; }
  // Bit i: actor i may be able to move and the next scan must look at it.
  std::uint64_t pending() const { return pending_; }
  // The actors in `bits` were looked at and cannot move: out until woken.
  void Idle(std::uint64_t bits) { pending_ &= ~bits; }

 private:
  static std::uint64_t Bit(ActorId id) { return std::uint64_t{1} << id; }

  std::uint64_t pending_ = 0;
  // By WakeOn: the actors filed under each event ([kAlwaysWatched] is
  // never read).
  std::uint64_t waiting_for_[kWakeOnCount] = {};
  std::uint8_t filed_under_[64] = {};  // by actor id: a WakeOn
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_WATCH_SET_H_
