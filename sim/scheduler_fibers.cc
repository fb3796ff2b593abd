// Fibers: switching between them, their entry and exit, and the teardown
// that unwinds (or abandons) every stack an execution leaves behind.

#include <unwind.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/scheduler.h"

namespace stackcheck::sim {

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
  watch_.Unwatch(id);
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
  watch_.Unwatch(id);
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
  watch_.Unwatch(id);
}

}  // namespace stackcheck::sim
