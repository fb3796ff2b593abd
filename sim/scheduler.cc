#include "sim/scheduler.h"

#include <unwind.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <utility>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/cu_result.h"
#include "sim/fingerprint.h"
#include "sim/trace/digest.h"

namespace stackcheck::sim {
namespace {}  // namespace

Scheduler::Scheduler() : stacks_(kFiberStackBytes) { set_device_books(&books_); }

Scheduler::~Scheduler() {
  // A Scheduler destroyed between executions holds no live fiber; make sure
  // of it so no fiber outlives its stack pool.
  if (actor_count_ > 0) Teardown();
  for (std::size_t i = 0; i < actor_count_; ++i) TsanDestroyFiber(actors_[i].tsan_fiber);
}

void Scheduler::BeginExecution(Strategy* strategy) {
  strategy_ = strategy;
  for (std::size_t i = 0; i < actor_count_; ++i) {
    actors_[i].body = nullptr;
    TsanDestroyFiber(actors_[i].tsan_fiber);
    actors_[i].tsan_fiber = nullptr;
  }
  actor_count_ = 0;
  host_threads_ = 0;
  callback_workers_ = 0;
  mutexes_.clear();
  wait_queues_.clear();
  guards_ = 0;
  shared_count_ = 0;
  trace_.clear();
  choices_.clear();
  violation_.reset();
  passed_.clear();
  passes_ = 0;
  digest_ = EventDigest();
  observes_every_step_ = strategy->ObservesEveryStep();
  steps_ = 0;
  now_ = 0;
  ++generation_;
  current_ = kMainContext;
  switcher_ = kMainContext;
  acting_ = kNoActor;
  last_chosen_ = kNoActor;
  stopped_ = false;
  tearing_down_ = false;
  guards_order_accesses_ = true;
  process_exited_ = false;
  exit_status_ = 0;
  exiting_actor_ = kNoActor;
  handlers_actor_ = kNoActor;
  handlers_program_wide_ = false;
  handlers_from_ = 0;
  stacks_at_end_ = Stacks::kIntact;
  watch_ = 0;
  for (std::uint64_t& set : waiting_for_) set = 0;
  for (auto& m : monitors_) m->Reset();
  books_.Reset();
}

Scheduler::Actor& Scheduler::NewActor(ActorKind kind) {
  if (actor_count_ == actors_.size()) actors_.emplace_back();
  if (candidates_.size() <= actor_count_) candidates_.resize(actors_.size() * 2);
  Actor& a = actors_[actor_count_++];
  a.kind = kind;
  a.state = ActorState::kRunnable;
  a.wait = WaitReason{};
  a.next = Footprint{};
  a.stack_bottom = nullptr;
  a.stack_size = 0;
  a.started = false;
  a.guards_held = 0;
  a.woken = false;
  a.timed = false;
  a.answer_epoch = 0;
  a.wake_on = kAlwaysWatched;
  Watch(static_cast<ActorId>(actor_count_ - 1),
        kind == ActorKind::kGpuStream ? kWakeOnDevice : kAlwaysWatched);
  return a;
}

ActorId Scheduler::SpawnFiber(ActorKind kind, std::function<void()> body,
                              const WaitReason& start_when) {
  Actor& a = NewActor(kind);
  const auto id = static_cast<ActorId>(actor_count_ - 1);
  switch (kind) {
    case ActorKind::kHostThread:
      a.index = host_threads_++;
      break;
    case ActorKind::kCallbackThread:
      a.index = 0;
      break;
    case ActorKind::kCallbackWorker:
      a.index = callback_workers_++;
      break;
    case ActorKind::kGpuStream:
      break;  // not a fiber
  }
  a.body = std::move(body);
  // Its first step starts the thread: it touches only its own life, and
  // runs the body's code up to its first point.
  a.next = Touches(ObjectId(ObjectKind::kThread, id), true);
  a.next.program = kRunsProgram;
  a.cont = boost::context::fiber(std::allocator_arg, PooledStack(&stacks_),
                                 [this, id](boost::context::fiber&& caller) {
                                   FiberEntry(id, std::move(caller));
                                   return FiberExit(id);
                                 });
  if (start_when.kind != WaitKind::kNone) {
    a.state = ActorState::kBlocked;
    a.wait = start_when;
    Watch(id, WakeOnFor(start_when, false));
  }
  a.tsan_fiber = TsanCreateFiber();
  const auto& stack = stacks_.last_allocated();
  a.stack_bottom = static_cast<const char*>(stack.sp) - stack.size;
  a.stack_size = stack.size;
  return id;
}

ActorId Scheduler::AddGpuActor(std::uint32_t stream) {
  Actor& a = NewActor(ActorKind::kGpuStream);
  a.index = stream;
  return static_cast<ActorId>(actor_count_ - 1);
}

absl::string_view Scheduler::NameFor(ActorKind kind, std::uint32_t index) const {
  std::deque<std::string>& names = names_[static_cast<int>(kind)];
  while (names.size() <= index) {
    const auto i = static_cast<std::uint32_t>(names.size());
    switch (kind) {
      case ActorKind::kHostThread:
        names.push_back(absl::StrCat("T", i));
        break;
      case ActorKind::kCallbackThread:
        names.push_back("callback");
        break;
      case ActorKind::kCallbackWorker:
        names.push_back(absl::StrCat("callback", i));
        break;
      case ActorKind::kGpuStream:
        names.push_back(absl::StrCat("gpu:s", i));
        break;
    }
  }
  return names[index];
}

absl::string_view Scheduler::ActorName(ActorId actor) const {
  if (actor >= actor_count_) return "?";
  return NameFor(actors_[actor].kind, actors_[actor].index);
}

absl::string_view Scheduler::MutexName(std::uint32_t mutex) const {
  if (mutex >= mutexes_.size()) return "?";
  return mutexes_[mutex].name;
}

absl::string_view Scheduler::MessageText(std::uint32_t key) const {
  auto it = messages_.find(key);
  return it == messages_.end() ? absl::string_view() : absl::string_view(it->second);
}

std::uint32_t Scheduler::InternMessage(absl::string_view text) {
  std::uint32_t key = 2166136261u;  // FNV-1a: the same in every process
  for (unsigned char c : text) key = (key ^ c) * 16777619u;
  auto it = messages_.find(key);
  if (it == messages_.end()) messages_.emplace(key, std::string(text));
  return key;
}

std::uint32_t Scheduler::NewWaitQueue(absl::string_view name) {
  wait_queues_.emplace_back();
  wait_queues_.back().name.assign(name.data(), name.size());
  return static_cast<std::uint32_t>(wait_queues_.size() - 1);
}

void Scheduler::WaitOnQueue(std::uint32_t queue, const Footprint& next) {
  Actor& self = actors_[current_];
  self.woken = false;
  wait_queues_[queue].waiters.push_back(current_);
  Log(EventKind::kWaitQueueBlock, queue, wait_queues_[queue].blamed);
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
  Log(EventKind::kWaitQueueBlock, queue, wait_queues_[queue].blamed);
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
    Log(EventKind::kWaitQueueWake, queue, waiter);
    ++woken;
  }
  if (woken > 0) watch_ |= waiting_for_[kWakeOnMutex];
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

void Scheduler::set_monitors(std::vector<std::unique_ptr<Monitor>> monitors) {
  monitors_ = std::move(monitors);
  std::vector<Monitor*> members;
  for (const auto& m : monitors_) m->AppendMembers(&members);
  monitor_reads_ = 0;
  books_reads_ = 0;
  for (const Monitor* m : members) {
    if (m->reads_device_books()) books_reads_ = DeviceBooks::kReads;
  }
  monitor_reads_ |= books_reads_;
  by_kind_.clear();
  call_filters_.clear();
  for (int k = 0; k < 64; ++k) {
    first_of_kind_[k] = static_cast<std::uint32_t>(by_kind_.size());
    for (Monitor* m : members) {
      if (((m->reads() >> k) & 1) == 0) continue;
      by_kind_.push_back(m);
      call_filters_.push_back(m->calls());
      monitor_reads_ |= EventKindMask{1} << k;
    }
  }
  first_of_kind_[64] = static_cast<std::uint32_t>(by_kind_.size());
  const EventKind call_kinds[2] = {EventKind::kDriverCall, EventKind::kDriverCallBlock};
  for (int c = 0; c < 2; ++c) {
    const auto k = static_cast<std::size_t>(call_kinds[c]);
    unmarked_call_apis_[c] = 0;
    for (std::uint32_t i = first_of_kind_[k]; i < first_of_kind_[k + 1]; ++i) {
      if (!call_filters_[i].marked_only) unmarked_call_apis_[c] |= call_filters_[i].apis;
    }
  }
}

void Scheduler::RunMonitors(EventKind kind) {
  const auto k = static_cast<std::size_t>(kind);
  if (kind == EventKind::kDriverCall || kind == EventKind::kDriverCallBlock) {
    RunCallMonitors(first_of_kind_[k], first_of_kind_[k + 1]);
    return;
  }
  const bool booked = (books_reads_ & KindBit(kind)) != 0;
  if (booked) books_.ApplyBefore(trace_.back(), trace_.size() - 1);
  Monitor* const* m = by_kind_.data() + first_of_kind_[k];
  Monitor* const* const last = by_kind_.data() + first_of_kind_[k + 1];
  const absl::Span<const Event> events(trace_);
  // Each verdict is constructed straight into verdict_ (a local optional
  // would give this function, called at every event, a stack guard and a
  // large frame).
  auto* const verdict = reinterpret_cast<std::optional<Violation>*>(&verdict_);
  for (; m != last; ++m) {
    new (verdict) std::optional<Violation>((*m)->OnEvent(events, *this));
    if (ABSL_PREDICT_FALSE(verdict->has_value())) {
      if (StopAtViolation(verdict)) return;
      continue;
    }
    verdict->~optional();  // disengaged: nothing to free
  }
  if (booked) books_.ApplyAfter(trace_.back(), trace_.size() - 1);
}

void Scheduler::RunCallMonitors(std::size_t first, std::size_t last) {
  const Event& e = trace_.back();
  const bool known_api = e.a < 64;
  const std::uint64_t api_bit = known_api ? std::uint64_t{1} << e.a : 0;
  const bool succeeded =
      e.kind != EventKind::kDriverCall || e.x == static_cast<std::uint64_t>(CuResult::kSuccess);
  const bool marked = (e.b & kCallFromCallback) != 0;
  const std::uint64_t unmarked_apis = unmarked_call_apis_[e.kind == EventKind::kDriverCall ? 0 : 1];
  if (known_api && !marked && (unmarked_apis & api_bit) == 0) return;
  const absl::Span<const Event> events(trace_);
  auto* const verdict = reinterpret_cast<std::optional<Violation>*>(&verdict_);
  for (std::size_t i = first; i < last; ++i) {
    const CallFilter& f = call_filters_[i];
    if ((known_api && (f.apis & api_bit) == 0) || (f.succeeded_only && !succeeded) ||
        (f.marked_only && !marked)) {
      continue;
    }
    new (verdict) std::optional<Violation>(by_kind_[i]->OnEvent(events, *this));
    if (ABSL_PREDICT_FALSE(verdict->has_value())) {
      if (StopAtViolation(verdict)) return;
      continue;
    }
    verdict->~optional();
  }
}

bool Scheduler::StopAtViolation(std::optional<Violation>* verdict) {
  (*verdict)->event_index = trace_.size() - 1;
  const bool stops = !Passes(**verdict);
  if (stops) {
    violation_ = std::move(*verdict);
    stopped_ = true;
  }
  verdict->~optional();
  return stops;
}

// At most this many violations are passed in one execution; the next one
// stops it, so a monitor that reports at every event cannot make an
// execution quadratic.
constexpr std::size_t kMaxPassed = 64;

bool Scheduler::Passes(Violation& v) {
  FingerprintFacts facts;
  facts.actor_kind = [this](ActorId actor) -> absl::string_view {
    if (actor >= actor_count_) return "unknown actor";
    switch (actors_[actor].kind) {
      case ActorKind::kHostThread:
        return "host thread";
      case ActorKind::kCallbackThread:
      case ActorKind::kCallbackWorker:
        return "callback thread";
      case ActorKind::kGpuStream:
        return "gpu stream";
    }
    return "unknown actor";
  };
  facts.mutex_name = [this](std::uint32_t mutex) { return MutexName(mutex); };
  facts.exit_handlers_actor = handlers_actor_;
  facts.exit_handlers_from = handlers_from_;
  v.fingerprint = Fingerprint(v, trace_, facts);
  if (!pass_ || passes_ >= kMaxPassed || !pass_(v)) return false;
  ++passes_;
  for (const Violation& p : passed_) {
    if (p.fingerprint == v.fingerprint) return true;
  }
  passed_.push_back(v);
  return true;
}

void Scheduler::ReportViolation(std::string property, std::string message,
                                std::vector<WaitLink> waits, bool cyclic) {
  if (violation_.has_value()) return;
  stopped_ = true;
  Violation v;
  v.property = std::move(property);
  v.message = std::move(message);
  v.event_index = trace_.empty() ? 0 : trace_.size() - 1;
  v.waits = std::move(waits);
  v.waits_form_cycle = cyclic;
  // An engine violation ends the execution even when passed: nothing can run.
  if (!Passes(v)) violation_ = std::move(v);
}

void Scheduler::QuiescenceMonitors(bool all_finished) {
  for (auto& monitor : monitors_) {
    if (violation_.has_value()) return;
    std::optional<Violation> v = monitor->OnQuiescence(trace_, *this, all_finished);
    if (v.has_value()) {
      v->event_index = trace_.empty() ? 0 : trace_.size() - 1;
      v->at_end = true;
      if (!Passes(*v)) violation_ = std::move(v);
    }
  }
}

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
  std::uint64_t pending = watch_;
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
  watch_ &= ~idle;
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
      Watch(id, WakeOnFor(a.wait, a.kind == ActorKind::kGpuStream));
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

void Scheduler::Point(const Footprint& next, PointKind kind) {
  if (tearing_down_) {
    if (kind == PointKind::kMayUnwind && MayUnwindHere()) UnwindHere();
    return;
  }
  if (current_ == kMainContext) return;  // called outside any execution
  Actor& a = actors_[current_];
  StoreWithProgram(&a.next, next, ProgramFlags(), a.guards_held);
  a.state = ActorState::kRunnable;
  Reschedule(kind);
}

void Scheduler::Block(const WaitReason& reason, const Footprint& next) {
  if (tearing_down_) {
    if (MayUnwindHere()) UnwindHere();
    return;
  }
  if (current_ == kMainContext) {
    std::fprintf(stderr,
                 "stackcheck: a simulated Device/Host call blocked outside "
                 "Simulator::Run\n");
    std::abort();
  }
  Actor& a = actors_[current_];
  a.state = ActorState::kBlocked;
  a.wait = reason;
  StoreWithProgram(&a.next, next, ProgramFlags(), a.guards_held);
  a.answer_epoch = 0;  // a new question for the device
  Watch(current_, WakeOnFor(reason, false));
  Reschedule(PointKind::kMayUnwind);
}

void Scheduler::Reschedule(PointKind kind) {
  const ActorId next = Choose();
  if (next == current_) return;
  SwitchTo(next);
  // Resumed: either chosen, or being unwound at teardown.
  if (tearing_down_ && kind == PointKind::kMayUnwind && MayUnwindHere()) {
    UnwindHere();
  }
}

void Scheduler::EndProcess(int status, Stacks stacks) {
  if (!tearing_down_ && exiting_actor_ == kNoActor) {
    exiting_actor_ = current_;
    stacks_at_end_ = stacks;
  }
  if (!tearing_down_ && !stopped_) {
    process_exited_ = true;
    exit_status_ = status;
    Log(EventKind::kProcessExit, 0, 0, 0, 0, static_cast<std::uint64_t>(status));
    QuiescenceMonitors(/*all_finished=*/true);
  }
  stopped_ = true;
  if (!tearing_down_) SwitchTo(kMainContext);
  // Only teardown resumes a fiber that ended the process.
  if (MayUnwindHere()) UnwindHere();
  std::fprintf(stderr, "stackcheck: process exit while unwinding a fiber\n");
  std::terminate();
}

void Scheduler::SwitchTo(ActorId to) {
  switcher_ = current_;
  current_ = to;
  acting_ = to;
  void* fake_stack = nullptr;
  if (to == kMainContext) {
    SanitizerStartSwitch(&fake_stack, main_stack_bottom_, main_stack_size_);
    TsanSwitchTo(main_tsan_fiber_);
  } else {
    SanitizerStartSwitch(&fake_stack, actors_[to].stack_bottom, actors_[to].stack_size);
    TsanSwitchTo(actors_[to].tsan_fiber);
  }
  boost::context::fiber back = std::move(ContinuationOf(to)).resume();
  SanitizerFinishSwitch(fake_stack, nullptr, nullptr);
  // Whoever switched here set current_ to us and switcher_ to itself.
  ContinuationOf(switcher_) = std::move(back);
}

void Scheduler::FiberEntry(ActorId id, boost::context::fiber&& caller) {
  const void* from_bottom = nullptr;
  std::size_t from_size = 0;
  SanitizerFinishSwitch(nullptr, &from_bottom, &from_size);
  if (switcher_ == kMainContext) {
    main_stack_bottom_ = from_bottom;
    main_stack_size_ = from_size;
  }
  ContinuationOf(switcher_) = std::move(caller);
  actors_[id].started = true;
  if (tearing_down_) return;
  // Frames above this one (the body's) unwind at teardown; this one is where
  // the unwind stops.
  volatile char marker = 0;
  actors_[id].entry_marker = const_cast<const char*>(&marker);
  try {
    actors_[id].body();
  } catch (const std::exception& e) {
    ReportViolation("no-exception", absl::StrCat(ActorName(id), " threw: ", e.what()));
  }
}

boost::context::fiber Scheduler::FiberExit(ActorId id) {
  // No reference into actors_ across Choose(): a GPU step may spawn a
  // callback fiber and grow the vector.
  ActorId next = kMainContext;
  actors_[id].state = ActorState::kFinished;
  Unwatch(id);
  if (!tearing_down_) {
    acting_ = id;
    Log(EventKind::kThreadEnd);
    next = Choose();
  }
  switcher_ = id;
  current_ = next;
  acting_ = next;
  if (next == kMainContext) {
    SanitizerStartSwitch(nullptr, main_stack_bottom_, main_stack_size_);
    TsanSwitchTo(main_tsan_fiber_);
  } else {
    SanitizerStartSwitch(nullptr, actors_[next].stack_bottom, actors_[next].stack_size);
    TsanSwitchTo(actors_[next].tsan_fiber);
  }
  return std::move(ContinuationOf(next));
}

void Scheduler::RunExecution() {
  main_tsan_fiber_ = TsanCurrentFiber();
  const ActorId first = Choose();
  if (first != kMainContext) SwitchTo(first);
  Teardown();
}

void Scheduler::Teardown() {
  tearing_down_ = true;
  // Newest first: a thread's stack may refer to objects on its parent's
  // (captured by reference), never the other way round; the fiber that ended
  // the process holds the runtime the others use, so it goes last.
  for (ActorId id = static_cast<ActorId>(actor_count_); id-- > 0;) {
    if (id == exiting_actor_ || !actors_[id].cont) continue;
    if (stacks_at_end_ != Stacks::kMainReturned && !OwnsNothing(id)) {
      Unwind(id);
    } else {
      Abandon(id);
    }
  }
  if (exiting_actor_ != kNoActor && actors_[exiting_actor_].cont) {
    // After main returned, or an exit from frames that own nothing, its
    // stack holds only the engine's exit path.
    if (stacks_at_end_ == Stacks::kIntact) {
      Unwind(exiting_actor_);
    } else {
      Abandon(exiting_actor_);
    }
  }
  // On the OS thread's own stack, still tearing down: a destructor's
  // scheduling point returns at once (MayUnwindHere), nothing is logged.
  current_ = kMainContext;
  kept_.clear();
  tearing_down_ = false;
  for (const Grave& g : graveyard_) g.free(g.object);
  graveyard_.clear();
}

bool Scheduler::OwnsNothing(ActorId id) const {
  // Unwinding costs a C++ throw (about a microsecond); skip it where the
  // stack holds only engine frames without heap-owning locals: a fiber that
  // never ran, and the serial callback thread waiting for work.
  const Actor& a = actors_[id];
  return !a.started || (a.kind == ActorKind::kCallbackThread && a.state == ActorState::kBlocked &&
                        a.wait.kind == WaitKind::kCallbackWork);
}

void Scheduler::Unwind(ActorId id) {
  // The resumed fiber unwinds from its scheduling point and switches back
  // here (from FinishUnwind), or runs to its end (from FiberExit).
  unwound_ = false;
  while (actors_[id].cont && !unwound_) SwitchTo(id);
  // Its handle now points into the unwinder's frames: never resume it.
  if (unwound_) Abandon(id);
  unwound_ = false;
}

bool Scheduler::MayUnwindHere() const {
  // Never the OS thread's own stack (objects destroyed at teardown run there).
  return current_ != kMainContext && !forced_unwinding_ && std::uncaught_exceptions() == 0;
}

// The unwinder's view of the scheduler: stops at the fiber's entry frame.
struct ForcedUnwindAccess {
  static _Unwind_Reason_Code Stop(int, _Unwind_Action actions, _Unwind_Exception_Class,
                                  _Unwind_Exception*, _Unwind_Context* context, void* parameter) {
    auto* s = static_cast<Scheduler*>(parameter);
    const auto marker = reinterpret_cast<_Unwind_Word>(s->actors_[s->current_].entry_marker);
    // Frames called from FiberEntry have their CFA at or below its locals.
    if ((actions & _UA_END_OF_STACK) != 0 || _Unwind_GetCFA(context) > marker) {
      s->FinishUnwind();
    }
    return _URC_NO_REASON;
  }
};

void Scheduler::UnwindHere() {
  // A forced unwind runs only the cleanup phase (a C++ throw would search the
  // stack first, then clean up: twice the cost, at every execution's end).
  static thread_local _Unwind_Exception exception;
  std::memset(&exception, 0, sizeof exception);
  exception.exception_class = 0x53544b4353494d00ull;  // "STKCSIM\0"
  forced_unwinding_ = true;
  _Unwind_ForcedUnwind(&exception, &ForcedUnwindAccess::Stop, this);
  std::fprintf(stderr, "stackcheck: cannot unwind an abandoned fiber\n");
  std::terminate();
}

void Scheduler::FinishUnwind() {
  // Every frame above FiberEntry has run its cleanups. Leave this stack for
  // good; Unwind() abandons the handle and the pool takes the stack back.
  const ActorId id = current_;
  forced_unwinding_ = false;
  unwound_ = true;
  actors_[id].state = ActorState::kFinished;
  Unwatch(id);
  switcher_ = id;
  current_ = kMainContext;
  acting_ = kMainContext;
  SanitizerStartSwitch(nullptr, main_stack_bottom_, main_stack_size_);
  TsanSwitchTo(main_tsan_fiber_);
  boost::context::fiber never = std::move(main_cont_).resume();
  std::terminate();
}

void Scheduler::Abandon(ActorId id) {
  // Dropping a suspended boost fiber would unwind it; instead its handle is
  // parked where no destructor runs, and its stack goes back to the pool. The
  // fiber's control record lives on that stack and owns nothing.
  alignas(boost::context::fiber) static thread_local unsigned char
      parked[sizeof(boost::context::fiber)];
  new (parked) boost::context::fiber(std::move(actors_[id].cont));
  boost::context::stack_context stack;
  stack.size = actors_[id].stack_size;
  stack.sp = const_cast<char*>(static_cast<const char*>(actors_[id].stack_bottom)) + stack.size;
  stacks_.Deallocate(stack);
  actors_[id].state = ActorState::kFinished;
  Unwatch(id);
}

}  // namespace stackcheck::sim
