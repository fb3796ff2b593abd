#include "sim/monitors/sync_clocks.h"

#include <algorithm>

#include "core/cu_result.h"
#include "sim/driver_api.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {

void ClockTable::Widen(std::uint32_t from, std::uint32_t to) {
  data_.resize(rows_ * to, 0);
  for (std::size_t r = rows_; r-- > 0;) {
    std::copy_backward(data_.begin() + r * from, data_.begin() + r * from + from,
                       data_.begin() + r * to + from);
    std::fill(data_.begin() + r * to + from, data_.begin() + (r + 1) * to, 0);
  }
}

void ClockTable::Clear() {
  std::fill(data_.begin(), data_.end(), 0);
  rows_ = 0;
}

void SyncClocks::Reset() {
  actors_.Clear();
  mutexes_.Clear();
  passes_.Clear();
  callbacks_.Clear();
  kernels_.Clear();
  gpu_.clear();
  stream_actor_.clear();
  next_callback_ = 0;
}

void SyncClocks::Widen(ActorId actor) {
  std::uint32_t to = width_;
  while (to <= actor) to *= 2;
  for (ClockTable* t : {&actors_, &mutexes_, &passes_, &callbacks_, &kernels_}) {
    t->Widen(width_, to);
  }
  width_ = to;
}

void SyncClocks::Release(ActorId actor, Entry* into) {
  const Entry* clock = ClockOf(actor);
  vector_clock::Copy(into, clock, width_);
  ++actors_.Row(actor, width_)[actor];
}

void SyncClocks::JoinGpu(ActorId actor) {
  for (ActorId g : gpu_) {
    ClockOf(actor);  // the row may move as ClockOf(g) grows the table
    const Entry* from = ClockOf(g);
    Join(actors_.Row(actor, width_), from);
  }
}

void SyncClocks::StartThread(ActorId child, ActorId parent) {
  ClockOf(child);
  Fit(parent);
  Entry* parent_clock = ClockOf(parent);
  Join(actors_.Row(child, width_), parent_clock);
  ++parent_clock[parent];
}

void SyncClocks::AcquireMutex(ActorId actor, std::uint32_t mutex) {
  Entry* clock = ClockOf(actor);
  if (mutexes_.Has(mutex)) Join(clock, mutexes_.Row(mutex, width_));
  if (passes_.Has(mutex)) {
    Entry* passes = passes_.Row(mutex, width_);
    Join(clock, passes);
    vector_clock::Clear(passes, width_);  // the unlock to come releases them
  }
}

void SyncClocks::DriverCallReturned(const Event& e) {
  if (e.x != static_cast<std::uint64_t>(CuResult::kSuccess)) return;
  const auto api = static_cast<DriverCall>(e.a);
  if (api == DriverCall::kStreamAddCallback || api == DriverCall::kLaunchHostFunc) {
    const std::uint32_t id = next_callback_++;
    if (id < kMaxIndexedId) {
      ClockOf(e.actor);
      Release(e.actor, callbacks_.Row(id, width_));
    }
  } else if ((kSynchronisingCalls & CallBit(api)) != 0) {
    // "complete" from a stream or event query is kSuccess; kNotReady
    // orders nothing.
    JoinGpu(e.actor);
  }
}

void SyncClocks::KernelStarted(const Event& e) {
  if (std::find(gpu_.begin(), gpu_.end(), e.actor) == gpu_.end()) gpu_.push_back(e.actor);
  if (e.b < kMaxIndexedId) {
    if (stream_actor_.size() <= e.b) stream_actor_.resize(e.b + 1, kNoActor);
    stream_actor_[e.b] = e.actor;
  }
  if (e.a < kMaxIndexedId && kernels_.Has(e.a)) {
    ClockOf(e.actor);
    Join(actors_.Row(e.actor, width_), kernels_.Row(e.a, width_));
  }
}

void SyncClocks::CallbackStarted(const Event& e) {
  ClockOf(e.actor);
  if (e.b < kMaxIndexedId && callbacks_.Has(e.b)) {
    Join(actors_.Row(e.actor, width_), callbacks_.Row(e.b, width_));
  }
  if (e.a < stream_actor_.size() && stream_actor_[e.a] != kNoActor) {
    const ActorId stream = stream_actor_[e.a];
    ClockOf(stream);
    Join(actors_.Row(e.actor, width_), actors_.Row(stream, width_));
  }
}

void SyncClocks::Apply(const Event& e) {
  if ((kActsOn & KindBit(e.kind)) == 0) return;
  if (e.actor == kNoActor || e.actor >= kMaxIndexedId) return;
  switch (e.kind) {
    case EventKind::kThreadStart:
      if (e.a != kNoActor && e.a < kMaxIndexedId) StartThread(e.actor, e.a);
      return;
    case EventKind::kJoin:
      if (e.a < kMaxIndexedId && actors_.Has(e.a)) {
        Fit(e.a);
        Entry* joiner = ClockOf(e.actor);  // rows only grow past both now
        Join(joiner, actors_.Row(e.a, width_));
      }
      return;
    case EventKind::kMutexLock:
      if (e.a < kMaxIndexedId) AcquireMutex(e.actor, e.a);
      return;
    case EventKind::kMutexPass:
      // Acquires what the holders released.
      if (e.a < kMaxIndexedId && mutexes_.Has(e.a))
        Join(ClockOf(e.actor), mutexes_.Row(e.a, width_));
      return;
    case EventKind::kMutexPassEnd:
      // Releases the pass's reads to the next lock (which the search orders
      // after the pass), not to other passes: passes only read and commute
      // with each other in the search, so one must not order the next.
      if (e.a < kMaxIndexedId) {
        Entry* clock = ClockOf(e.actor);
        Join(passes_.Row(e.a, width_), clock);
        ++clock[e.actor];
      }
      return;
    case EventKind::kMutexUnlock:
      if (e.a < kMaxIndexedId) {
        ClockOf(e.actor);
        Release(e.actor, mutexes_.Row(e.a, width_));
      }
      return;
    case EventKind::kDriverCall:
      DriverCallReturned(e);
      return;
    case EventKind::kKernelEnqueue:
      if (e.a < kMaxIndexedId) {
        ClockOf(e.actor);
        Release(e.actor, kernels_.Row(e.a, width_));
      }
      return;
    case EventKind::kKernelStart:
      KernelStarted(e);
      return;
    case EventKind::kCallbackStart:
    case EventKind::kHostFnStart:
      CallbackStarted(e);
      return;
    default:
      return;
  }
}

}  // namespace stackcheck::sim
