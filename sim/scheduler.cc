#include "sim/scheduler.h"

#include <cstdio>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/event_payloads.h"
#include "sim/trace/digest.h"

namespace stackcheck::sim {

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
  watch_.Clear();
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
  watch_.Watch(static_cast<ActorId>(actor_count_ - 1),
               kind == ActorKind::kGpuStream ? WatchSet::kWakeOnDevice : WatchSet::kAlwaysWatched);
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
    watch_.Watch(id, WatchSet::For(start_when, false));
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
  watch_.Watch(current_, WatchSet::For(reason, false));
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
    Log(EventKind::kProcessExit, payload::ExitStatus{status});
    QuiescenceMonitors(/*all_finished=*/true);
  }
  stopped_ = true;
  if (!tearing_down_) SwitchTo(kMainContext);
  // Only teardown resumes a fiber that ended the process.
  if (MayUnwindHere()) UnwindHere();
  std::fprintf(stderr, "stackcheck: process exit while unwinding a fiber\n");
  std::terminate();
}

void Scheduler::RunExecution() {
  main_tsan_fiber_ = TsanCurrentFiber();
  const ActorId first = Choose();
  if (first != kMainContext) SwitchTo(first);
  Teardown();
}

}  // namespace stackcheck::sim
