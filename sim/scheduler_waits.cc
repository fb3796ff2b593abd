// The scheduler's synchronisation objects: mutexes (and which of them guard
// shared state), the wait queues a real program's futexes and condition
// variables block on, and the names of shared state for reports.

#include <algorithm>

#include "sim/event_payloads.h"
#include "sim/scheduler.h"

namespace stackcheck::sim {

std::uint32_t Scheduler::NewWaitQueue(absl::string_view name) {
  wait_queues_.emplace_back();
  wait_queues_.back().name.assign(name.data(), name.size());
  return static_cast<std::uint32_t>(wait_queues_.size() - 1);
}

void Scheduler::WaitOnQueue(std::uint32_t queue, const Footprint& next) {
  Actor& self = actors_[current_];
  self.woken = false;
  wait_queues_[queue].waiters.push_back(current_);
  Log(EventKind::kWaitQueueBlock, payload::WaitQueue{queue, wait_queues_[queue].blamed});
  while (!actors_[current_].woken && !stopped_ && !tearing_down_) {
    Block(WaitReason{WaitKind::kWakeup, queue}, next);
  }
}

void Scheduler::AwaitRest(const Footprint& end) { Block(WaitReason{WaitKind::kRest}, end); }

bool Scheduler::WaitOnQueueOrTimeOut(std::uint32_t queue, const Footprint& next) {
  Actor& self = actors_[current_];
  self.woken = false;
  self.timed = true;
  wait_queues_[queue].waiters.push_back(current_);
  Log(EventKind::kWaitQueueBlock, payload::WaitQueue{queue, wait_queues_[queue].blamed});
  // Resumed either woken, or picked by Choose from CollectExpiringWaits.
  Block(WaitReason{WaitKind::kWakeup, queue}, next);
  actors_[current_].timed = false;
  if (actors_[current_].woken) return true;
  std::deque<ActorId>& waiters = wait_queues_[queue].waiters;
  waiters.erase(std::remove(waiters.begin(), waiters.end(), current_), waiters.end());
  return false;
}

std::uint32_t Scheduler::WakeQueue(std::uint32_t queue, std::uint32_t count) {
  WaitQueueState& q = wait_queues_[queue];
  std::uint32_t woken = 0;
  while (woken < count && !q.waiters.empty()) {
    const ActorId waiter = q.waiters.front();
    q.waiters.pop_front();
    actors_[waiter].woken = true;
    Log(EventKind::kWaitQueueWake, payload::WaitQueue{queue, waiter});
    ++woken;
  }
  if (woken > 0) watch_.Wake(WatchSet::kWakeOnMutex);
  return woken;
}

std::uint32_t Scheduler::NewMutex(absl::string_view name) {
  mutexes_.emplace_back();
  mutexes_.back().name.assign(name.data(), name.size());
  return static_cast<std::uint32_t>(mutexes_.size() - 1);
}

std::uint8_t Scheduler::MarkGuard(std::uint32_t mutex) {
  MutexState& m = mutexes_[mutex];
  if (m.guard_bit == 0) {
    m.guard_bit = static_cast<std::uint8_t>(1u << (guards_++ % 8));
    GuardsChanged(kNoActor, m.owner);
  }
  return m.guard_bit;
}

std::uint8_t Scheduler::GuardsOf(ActorId actor) const {
  std::uint8_t bits = 0;
  for (const MutexState& m : mutexes_) {
    if (m.owner == actor) bits |= m.guard_bit;
  }
  return bits;
}

void Scheduler::GuardsChanged(ActorId before, ActorId after) {
  if (before != kNoActor && before < actor_count_) actors_[before].guards_held = GuardsOf(before);
  if (after != kNoActor && after < actor_count_) actors_[after].guards_held = GuardsOf(after);
}

std::uint32_t Scheduler::NewShared(absl::string_view name) {
  // Names keep their strings across executions: no allocation once seen.
  if (shared_count_ == shared_names_.size()) shared_names_.emplace_back();
  shared_names_[shared_count_].assign(name.data(), name.size());
  return static_cast<std::uint32_t>(shared_count_++);
}

absl::string_view Scheduler::SharedName(std::uint32_t object) const {
  if (object >= shared_count_) return "?";
  return shared_names_[object];
}

}  // namespace stackcheck::sim
