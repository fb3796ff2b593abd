// The choice at every scheduling point: which actors can move (the watched
// set, the device's cached answers), what the strategy is asked, and what
// happens when nobody can move (a deadlock, or the end of the execution).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "sim/scheduler.h"

namespace stackcheck::sim {

bool Scheduler::AskDevice(const Actor& a, Footprint* next) {
  if (a.kind == ActorKind::kGpuStream) return gpu_->StreamStepReady(a.index, next);
  if (a.wait.kind == WaitKind::kCallbackWork) {
    // The step takes the work and runs the callback: program code.
    const bool ready = gpu_->CallbackWorkReady(next);
    next->program |= kRunsProgram;
    return ready;
  }
  *next = a.next;
  return gpu_->WaitSatisfied(a.wait);
}

bool Scheduler::RefreshAnswer(Actor& a, Footprint* next) {
  if (a.answer_epoch != device_epoch_) {
    a.answer = AskDevice(a, &a.answer_next);
    a.answer_epoch = device_epoch_;
  } else {
    // Sanitizer builds come here on every hit too, and check that no device
    // change went unannounced.
    Footprint fresh;
    const bool ready = AskDevice(a, &fresh);
    if (ready != a.answer || (ready && (fresh.count != a.answer_next.count ||
                                        std::memcmp(fresh.accesses, a.answer_next.accesses,
                                                    sizeof fresh.accesses) != 0))) {
      std::fprintf(stderr,
                   "stackcheck: the device changed %.*s's readiness without "
                   "calling DeviceChanged\n",
                   static_cast<int>(NameFor(a.kind, a.index).size()),
                   NameFor(a.kind, a.index).data());
      std::abort();
    }
  }
  *next = a.answer_next;
  return a.answer;
}

inline bool Scheduler::DeviceAnswer(Actor& a, Footprint* next) {
#ifndef STACKCHECK_ASAN
  if (a.answer_epoch == device_epoch_) {
    *next = a.answer_next;
    return a.answer;
  }
#endif
  return RefreshAnswer(a, next);
}

inline bool Scheduler::Ready(ActorId id, Footprint* next) {
  Actor& a = actors_[id];
  switch (a.state) {
    case ActorState::kFinished:
      return false;
    case ActorState::kRunnable:
      if (a.kind == ActorKind::kGpuStream) return DeviceAnswer(a, next);
      *next = a.next;
      return true;
    case ActorState::kBlocked:
      break;
  }
  switch (a.wait.kind) {
    case WaitKind::kNone:
      *next = a.next;
      return true;
    case WaitKind::kMutex:
      *next = a.next;
      return mutexes_[a.wait.object].owner == kNoActor;
    case WaitKind::kJoin:
      *next = a.next;
      return actors_[a.wait.object].state == ActorState::kFinished;
    case WaitKind::kWakeup:
      *next = a.next;
      return a.woken;
    case WaitKind::kRest:  // CollectExpiringWaits picks it
      return false;
    case WaitKind::kCallbackWork:
    case WaitKind::kStreamIdle:
    case WaitKind::kAllStreamsIdle:
    case WaitKind::kAllStreamsIdleOrFault:
    case WaitKind::kEvent:
      return DeviceAnswer(a, next);
  }
  return false;
}

inline std::size_t Scheduler::CollectCandidates(int* current_index) {
  // Footprints are written straight into the candidate slots (NewActor
  // keeps one per actor): copying them through a temporary stalls on store
  // forwarding at every step.
  Candidate* const slots = candidates_.data();
  std::size_t count = 0;
  int current = -1;
  for (ActorId id = 0; id < actor_count_; ++id) {
    Candidate& c = slots[count];
    const Actor& a = actors_[id];
    if (a.state == ActorState::kRunnable && a.kind != ActorKind::kGpuStream) {
      c.next = a.next;  // the common case, without a call
    } else if (a.state == ActorState::kFinished || !Ready(id, &c.next)) {
      continue;
    }
    c.actor = id;
    if (id == last_chosen_) current = static_cast<int>(count);
    ++count;
  }
  *current_index = current;
  return count;
}

inline std::size_t Scheduler::CollectWatched(int* current_index) {
  Candidate* const slots = candidates_.data();
  std::size_t count = 0;
  int current = -1;
  std::uint64_t pending = watch_.pending();
  std::uint64_t idle = 0;  // looked at, and cannot move: stops being watched
  while (pending != 0) {
    const auto id = static_cast<ActorId>(__builtin_ctzll(pending));
    pending &= pending - 1;
    Candidate& c = slots[count];
    const Actor& a = actors_[id];
    if (a.state == ActorState::kRunnable && a.kind != ActorKind::kGpuStream) {
      c.next = a.next;  // the common case, without a call
    } else if (a.state == ActorState::kFinished || !Ready(id, &c.next)) {
      idle |= std::uint64_t{1} << id;
      continue;
    }
    c.actor = id;
    if (id == last_chosen_) current = static_cast<int>(count);
    ++count;
  }
  watch_.Idle(idle);
  *current_index = current;
  return count;
}

std::size_t Scheduler::CollectExpiringWaits() {
  std::size_t count = 0;
  ActorId resting = kNoActor;
  for (ActorId id = 0; id < actor_count_; ++id) {
    const Actor& a = actors_[id];
    if (a.state != ActorState::kBlocked) continue;
    if (a.wait.kind == WaitKind::kRest) {
      if (resting == kNoActor) resting = id;
      continue;
    }
    if (!a.timed || a.woken) continue;
    candidates_[count].actor = id;
    candidates_[count].next = a.next;
    ++count;
  }
  // An actor awaiting rest goes last: a timed wait expiring lets its actor
  // move again.
  if (count == 0 && resting != kNoActor) {
    candidates_[0].actor = resting;
    candidates_[0].next = actors_[resting].next;
    count = 1;
  }
  return count;
}

void Scheduler::MarkStateFlags(std::size_t count) {
  const bool healthy = gpu_ == nullptr || !gpu_->sticky_error();
  for (std::size_t i = 0; i < count; ++i) {
    Footprint& next = candidates_[i].next;
    if ((next.blocking & kWaitsForIdle) && healthy) next.blocking |= kWaitsOnHealthyContext;
    if (!(next.blocking & kLockAttempt) || next.count != 1) continue;
    const std::uint32_t object = next.accesses[0].object;
    if (object >> 24 != static_cast<std::uint32_t>(ObjectKind::kMutex)) continue;
    const std::uint32_t mutex = object & 0xffffffu;
    if (mutex < mutexes_.size() && mutexes_[mutex].owner != kNoActor) {
      next.blocking |= kBlockedAttempt;
    }
  }
}

ActorId Scheduler::Choose() {
  for (;;) {
    if (stopped_) return kMainContext;
    if (steps_ >= step_bound_) {
      StepBoundReached();
      return kMainContext;
    }
    ++steps_;
    int current_index = -1;
    std::size_t count;
    if (actor_count_ <= 64) {
      count = CollectWatched(&current_index);
#ifdef STACKCHECK_ASAN
      CheckWatched(count, current_index);
#endif
    } else {
      count = CollectCandidates(&current_index);
    }
    if (count == 0) count = CollectExpiringWaits();
    if (count == 0) {
      OnStuck();
      return kMainContext;
    }
    std::size_t pick = 0;
    // Most points have one candidate, and only DPOR wants to see those.
    if (count > 1 || observes_every_step_) {
      if (!Ask(count, current_index, &pick)) return kMainContext;
    }
    const ActorId id = candidates_[pick].actor;
    last_chosen_ = id;
    Actor& a = actors_[id];
    if (a.state == ActorState::kBlocked) {
      a.state = ActorState::kRunnable;
      a.wait = WaitReason{};
      watch_.Watch(id, WatchSet::For(a.wait, a.kind == ActorKind::kGpuStream));
    }
    if (a.kind != ActorKind::kGpuStream) return id;
    const ActorId saved = acting_;
    acting_ = id;
    gpu_->StreamStep(a.index);
    acting_ = saved;
  }
}

#ifdef STACKCHECK_ASAN
void Scheduler::CheckWatched(std::size_t count, int current_index) {
  // Sanitizer builds compare every watched scan with a full one: an actor
  // left out of watch_ that could move would change the schedule.
  const std::vector<Candidate> watched(candidates_.begin(), candidates_.begin() + count);
  int full_current = -1;
  const std::size_t full = CollectCandidates(&full_current);
  bool same = full == count && full_current == current_index;
  for (std::size_t i = 0; same && i < count; ++i) {
    const Candidate& x = watched[i];
    const Candidate& y = candidates_[i];
    same = x.actor == y.actor && x.next.count == y.next.count &&
           std::memcmp(x.next.accesses, y.next.accesses, sizeof x.next.accesses) == 0;
  }
  if (!same) {
    std::fprintf(stderr,
                 "stackcheck: an actor that can move was not watched "
                 "(a wake-up is missing)\n");
    std::abort();
  }
}
#endif

bool Scheduler::Ask(std::size_t count, int current_index, std::size_t* pick) {
  if (observes_every_step_) MarkStateFlags(count);
  const SchedulingPoint point{absl::MakeConstSpan(candidates_.data(), count), current_index};
  if (count == 1) {
    // DPOR sees every step; the answer is 0 and not part of the schedule.
    strategy_->NextActor(point);
    *pick = 0;
    return true;
  }
  *pick = strategy_->NextActor(point);
  if (*pick >= count) {
    InvalidPick(*pick, count);
    return false;
  }
  choices_.push_back(*pick);
  return true;
}

void Scheduler::InvalidPick(std::size_t pick, std::size_t count) {
  ReportViolation("invalid-schedule",
                  absl::StrFormat("the strategy chose candidate %d of %d", pick, count));
}

void Scheduler::StepBoundReached() {
  ReportViolation("progress", absl::StrFormat("no end after %d scheduling steps: "
                                              "livelock, spinning or unbounded work",
                                              step_bound_));
}

void Scheduler::OnStuck() {
  bool someone_waits = false;
  for (ActorId id = 0; id < actor_count_; ++id) {
    const Actor& a = actors_[id];
    if (a.state == ActorState::kBlocked && a.wait.kind != WaitKind::kCallbackWork) {
      someone_waits = true;
      break;
    }
  }
  if (someone_waits) {
    std::vector<WaitLink> links;
    bool cyclic = false;
    std::string report = DescribeDeadlock(&links, &cyclic);
    ReportViolation("no-deadlock", std::move(report), std::move(links), cyclic);
  } else {
    QuiescenceMonitors(/*all_finished=*/true);
  }
  stopped_ = true;
}

}  // namespace stackcheck::sim
