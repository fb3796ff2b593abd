#include "sim/monitors/sync_clocks.h"

#include <algorithm>

#include "core/cu_result.h"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"
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
  const auto call = e.As<payload::Call>();
  if (call.result != CuResult::kSuccess) return;
  const DriverCall api = call.call;
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
  const auto kernel = e.As<payload::Kernel>();
  if (kernel.stream < kMaxIndexedId) {
    if (stream_actor_.size() <= kernel.stream) stream_actor_.resize(kernel.stream + 1, kNoActor);
    stream_actor_[kernel.stream] = e.actor;
  }
  if (kernel.kernel < kMaxIndexedId && kernels_.Has(kernel.kernel)) {
    ClockOf(e.actor);
    Join(actors_.Row(e.actor, width_), kernels_.Row(kernel.kernel, width_));
  }
}

void SyncClocks::CallbackStarted(const Event& e) {
  const auto work = e.As<payload::StreamWork>();
  ClockOf(e.actor);
  if (work.id < kMaxIndexedId && callbacks_.Has(work.id)) {
    Join(actors_.Row(e.actor, width_), callbacks_.Row(work.id, width_));
  }
  if (work.stream < stream_actor_.size() && stream_actor_[work.stream] != kNoActor) {
    const ActorId stream = stream_actor_[work.stream];
    ClockOf(stream);
    Join(actors_.Row(e.actor, width_), actors_.Row(stream, width_));
  }
}

void SyncClocks::Apply(const Event& e) {
  if ((kActsOn & KindBit(e.kind)) == 0) return;
  if (e.actor == kNoActor || e.actor >= kMaxIndexedId) return;
  switch (e.kind) {
    case EventKind::kThreadStart: {
      const ActorId parent = e.As<payload::ThreadStart>().parent;
      if (parent != kNoActor && parent < kMaxIndexedId) StartThread(e.actor, parent);
      return;
    }
    case EventKind::kJoin: {
      const ActorId joined = e.As<payload::Join>().joined;
      if (joined < kMaxIndexedId && actors_.Has(joined)) {
        Fit(joined);
        Entry* joiner = ClockOf(e.actor);  // rows only grow past both now
        Join(joiner, actors_.Row(joined, width_));
      }
      return;
    }
    case EventKind::kMutexLock: {
      const std::uint32_t mutex = e.As<payload::Mutex>().mutex;
      if (mutex < kMaxIndexedId) AcquireMutex(e.actor, mutex);
      return;
    }
    case EventKind::kMutexPass: {
      // Acquires what the holders released.
      const std::uint32_t mutex = e.As<payload::Mutex>().mutex;
      if (mutex < kMaxIndexedId && mutexes_.Has(mutex))
        Join(ClockOf(e.actor), mutexes_.Row(mutex, width_));
      return;
    }
    case EventKind::kMutexPassEnd: {
      // Releases the pass's reads to the next lock (which the search orders
      // after the pass), not to other passes: passes only read and commute
      // with each other in the search, so one must not order the next.
      const std::uint32_t mutex = e.As<payload::Mutex>().mutex;
      if (mutex < kMaxIndexedId) {
        Entry* clock = ClockOf(e.actor);
        Join(passes_.Row(mutex, width_), clock);
        ++clock[e.actor];
      }
      return;
    }
    case EventKind::kMutexUnlock: {
      // Whoever held it: an unlock by anyone orders the next lock.
      const std::uint32_t mutex = e.As<payload::MutexHeld>().mutex;
      if (mutex < kMaxIndexedId) {
        ClockOf(e.actor);
        Release(e.actor, mutexes_.Row(mutex, width_));
      }
      return;
    }
    case EventKind::kDriverCall:
      DriverCallReturned(e);
      return;
    case EventKind::kKernelEnqueue: {
      const std::uint32_t kernel = e.As<payload::Kernel>().kernel;
      if (kernel < kMaxIndexedId) {
        ClockOf(e.actor);
        Release(e.actor, kernels_.Row(kernel, width_));
      }
      return;
    }
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
