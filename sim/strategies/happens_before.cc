#include "sim/strategies/happens_before.h"

#include <algorithm>

namespace stackcheck::sim {
namespace {

bool IsThreadEnd(std::uint32_t object) {
  return (object & ~kDeviceBit) >> 24 == static_cast<std::uint32_t>(ObjectKind::kThreadEnd);
}

// `step` without its launch objects (ObjectKind::kLaunch).
Footprint WithoutLaunches(const Footprint& step) {
  Footprint out = step;
  out.count = 0;
  for (int a = 0; a < step.count; ++a) {
    const std::uint32_t kind = (step.accesses[a].object & ~kDeviceBit) >> 24;
    if (kind != static_cast<std::uint32_t>(ObjectKind::kLaunch)) {
      out.accesses[out.count++] = step.accesses[a];
    }
  }
  return out;
}

bool Writes(const Footprint& step, std::uint32_t object) {
  for (int a = 0; a < step.count; ++a) {
    if (step.accesses[a].object == object && step.accesses[a].write) return true;
  }
  return false;
}

// Which recorded steps a pending step may race with besides those on its
// objects and the global ones.
struct RaceScope {
  bool all = false;     // any step
  bool device = false;  // the device-wide ones
};

RaceScope RaceScopeOf(const Footprint& pending) {
  RaceScope scope;
  // A program-wide step can race with any program step, one breaking a
  // guard bit with any step holding it: scan them all.
  scope.all = (pending.program & kProgramWide) != 0 || pending.breaks != 0;
  for (int a = 0; a < pending.count; ++a) {
    const std::uint32_t object = pending.accesses[a].object;
    // A device-wide step can race with any device step: scan them all.
    scope.all |= object == kGlobalObject || object == kDeviceWideObject;
    scope.device |= (object & kDeviceBit) != 0 && !(pending.beside & kBesideDeviceWide);
  }
  return scope;
}

}  // namespace

void HappensBefore::Reset() {
  steps_.clear();
  step_clocks_.clear();
  actors_ = 0;
  actor_clocks_.clear();
  special_.assign(kSpecialCount * width_, 0);
  object_clocks_.clear();
  object_index_.clear();
  objects_used_ = 0;
  global_steps_.clear();
  device_wide_steps_.clear();
  program_wide_steps_.clear();
  breaking_steps_.clear();
  undo_.clear();
  undo_clocks_.clear();
  undo_mark_.clear();
  for (auto& steps : actor_steps_) steps.clear();
}

std::uint32_t HappensBefore::SaveClock(const Entry* clock) {
  const auto saved = static_cast<std::uint32_t>(undo_clocks_.size() / width_);
  undo_clocks_.insert(undo_clocks_.end(), clock, clock + width_);
  return saved;
}

void HappensBefore::SaveObjectClock(std::uint32_t clock) {
  undo_.push_back({UndoKind::kObjectClock, clock, SaveClock(&object_clocks_[clock * width_])});
}

void HappensBefore::SaveSpecial(Special c) {
  undo_.push_back(
      {UndoKind::kSpecialClock, static_cast<std::uint32_t>(c), SaveClock(SpecialClock(c))});
}

void HappensBefore::SaveActorClock(ActorId actor) {
  undo_.push_back({UndoKind::kActorClock, actor, SaveClock(&actor_clocks_[actor * width_])});
}

void HappensBefore::Truncate(std::size_t steps) {
  if (steps >= steps_.size()) return;
  const std::size_t mark = undo_mark_[steps];
  while (undo_.size() > mark) {
    const Undo u = undo_.back();
    undo_.pop_back();
    if (u.kind == UndoKind::kNewObject) {
      object_index_.erase(u.index);
      --objects_used_;
      object_clocks_.resize(object_clocks_.size() - 2 * width_);
      continue;
    }
    Entry* target = nullptr;
    switch (u.kind) {
      case UndoKind::kObjectClock:
        target = &object_clocks_[u.index * width_];
        break;
      case UndoKind::kSpecialClock:
        target = SpecialClock(static_cast<Special>(u.index));
        break;
      case UndoKind::kActorClock:
        target = &actor_clocks_[u.index * width_];
        break;
      case UndoKind::kNewObject:
        break;
    }
    Copy(target, &undo_clocks_[u.saved * width_]);
    undo_clocks_.resize(u.saved * width_);
  }
  const auto cut = [steps](std::vector<std::uint32_t>& list) {
    while (!list.empty() && list.back() >= steps) list.pop_back();
  };
  cut(global_steps_);
  cut(device_wide_steps_);
  cut(program_wide_steps_);
  cut(breaking_steps_);
  for (std::size_t o = 0; o < objects_used_; ++o) {
    cut(objects_[o].steps);
    cut(objects_[o].writes);
  }
  for (auto& list : actor_steps_) cut(list);
  steps_.resize(steps);
  step_clocks_.resize(steps * width_);
  undo_mark_.resize(steps);
}

void HappensBefore::Fit(ActorId actor) {
  if (actor >= width_) {
    std::uint32_t width = width_;
    while (width <= actor) width *= 2;
    auto widen = [&](std::vector<Entry>& arena) {
      const std::size_t clocks = arena.size() / width_;
      std::vector<Entry> wide(clocks * width, 0);
      for (std::size_t c = 0; c < clocks; ++c) {
        std::copy(&arena[c * width_], &arena[c * width_] + width_, &wide[c * width]);
      }
      arena.swap(wide);
    };
    widen(step_clocks_);
    widen(actor_clocks_);
    widen(special_);
    widen(object_clocks_);
    widen(undo_clocks_);
    width_ = width;
  }
  if (actor >= actors_) {
    actor_clocks_.resize(static_cast<std::size_t>(actor + 1) * width_, 0);
    actors_ = actor + 1;
  }
}

HappensBefore::ObjectState& HappensBefore::Touch(std::uint32_t object) {
  auto [it, inserted] =
      object_index_.try_emplace(object, static_cast<std::uint32_t>(objects_used_));
  if (!inserted) return objects_[it->second];
  undo_.push_back({UndoKind::kNewObject, object, 0});
  if (objects_used_ == objects_.size()) objects_.emplace_back();
  ObjectState& state = objects_[objects_used_++];
  state.clocks = static_cast<std::uint32_t>(object_clocks_.size() / width_);
  object_clocks_.resize(object_clocks_.size() + 2 * width_, 0);
  state.steps.clear();
  state.writes.clear();
  return state;
}

void HappensBefore::ClockOf(ActorId actor, const Footprint& step, Entry* clock) const {
  if (const Entry* own = ActorClock(actor)) {
    Copy(clock, own);
  } else {
    Clear(clock);
  }
  // The clocks of the latest global, device-wide and program-wide steps are
  // all zero (nothing to join) until such a step is recorded.
  if (step.program & kProgramWide) Join(clock, SpecialClock(kProgramAll));
  if ((step.program & kRunsProgram) && !program_wide_steps_.empty()) {
    Join(clock, SpecialClock(kProgramWideClock));
  }
  // A step holding a guard follows every step that broke it, and the other
  // way round (Footprint::held, breaks).
  if (step.held != 0 && !breaking_steps_.empty()) {
    for (int bit = 0; bit < 8; ++bit) {
      if (step.held & (1u << bit)) Join(clock, SpecialClock(BrokenAll(bit)));
    }
  }
  for (int bit = 0; step.breaks != 0 && bit < 8; ++bit) {
    if (step.breaks & (1u << bit)) Join(clock, SpecialClock(HeldAll(bit)));
  }
  for (int a = 0; a < step.count; ++a) {
    const Access& access = step.accesses[a];
    if (access.object == kGlobalObject) {
      Join(clock, SpecialClock(kAll));
      continue;
    }
    if (!global_steps_.empty()) Join(clock, SpecialClock(kGlobalClock));
    if (access.object == kDeviceWideObject) {
      Join(clock, SpecialClock(kDeviceAll));
      continue;
    }
    if ((access.object & kDeviceBit) && !device_wide_steps_.empty() &&
        !(step.beside & kBesideDeviceWide)) {
      Join(clock, SpecialClock(kDeviceWideClock));
    }
    if (IsThreadEnd(access.object)) {
      // A join (the only reader of a thread's end) completes only after the
      // target's last step, which enables it: that edge is what no footprint
      // can declare (no step knows it is the last), so it is taken from the
      // target's clock here. Called while the target still runs, the join
      // blocks and changes nothing: ordering it after the target's steps so
      // far hides no reversal whose outcome differs.
      const auto target = static_cast<ActorId>(access.object & 0xffffffu);
      if (const Entry* ended = ActorClock(target)) Join(clock, ended);
    }
    const ObjectState* object = Find(access.object);
    if (object == nullptr) continue;
    Join(clock, LastWrite(*object));
    if (access.write) Join(clock, Reads(*object));
  }
  // An actor beyond the width has no step yet: nothing can know of it.
  if (actor < width_) clock[actor] = static_cast<Entry>(steps_.size() + 1);
}

std::size_t HappensBefore::Record(ActorId actor, const Footprint& step) {
  Fit(actor);
  const std::size_t index = steps_.size();
  undo_mark_.push_back(static_cast<std::uint32_t>(undo_.size()));
  step_clocks_.resize(step_clocks_.size() + width_);
  Entry* const clock = StepClock(index);
  ClockOf(actor, step, clock);
  bool global = false;
  bool device = false;
  for (int a = 0; a < step.count; ++a) {
    const Access& access = step.accesses[a];
    if (access.object == kGlobalObject) {
      global = true;
      continue;
    }
    // A step beside device-wide ones stays out of the join they follow.
    if ((access.object & kDeviceBit) && !(step.beside & kBesideDeviceWide)) device = true;
    if (access.object == kDeviceWideObject) {
      SaveSpecial(kDeviceWideClock);
      Copy(SpecialClock(kDeviceWideClock), clock);
      device_wide_steps_.push_back(static_cast<std::uint32_t>(index));
      continue;
    }
    ObjectState& object = Touch(access.object);
    if (step.blocking & kBlockedAttempt) {
      // Leaves the mutex's clocks as they were (Footprint::blocking).
    } else if (access.write) {
      SaveObjectClock(object.clocks);
      SaveObjectClock(object.clocks + 1);
      Copy(LastWrite(object), clock);
      Clear(Reads(object));  // the write already follows them
    } else {
      SaveObjectClock(object.clocks + 1);
      Join(Reads(object), clock);
    }
    if (object.steps.empty() || object.steps.back() != index) {
      object.steps.push_back(static_cast<std::uint32_t>(index));
    }
    if (access.write && (object.writes.empty() || object.writes.back() != index)) {
      object.writes.push_back(static_cast<std::uint32_t>(index));
    }
  }
  if (step.program & kProgramWide) {
    SaveSpecial(kProgramWideClock);
    Copy(SpecialClock(kProgramWideClock), clock);
    program_wide_steps_.push_back(static_cast<std::uint32_t>(index));
  }
  if (step.program & kRunsProgram) {
    SaveSpecial(kProgramAll);
    Join(SpecialClock(kProgramAll), clock);
  }
  for (int bit = 0; (step.held | step.breaks) != 0 && bit < 8; ++bit) {
    if (step.held & (1u << bit)) {
      SaveSpecial(HeldAll(bit));
      Join(SpecialClock(HeldAll(bit)), clock);
    }
    if (step.breaks & (1u << bit)) {
      SaveSpecial(BrokenAll(bit));
      Join(SpecialClock(BrokenAll(bit)), clock);
    }
  }
  if (step.breaks != 0) breaking_steps_.push_back(static_cast<std::uint32_t>(index));
  if (global) {
    SaveSpecial(kGlobalClock);
    Copy(SpecialClock(kGlobalClock), clock);
    global_steps_.push_back(static_cast<std::uint32_t>(index));
  }
  SaveSpecial(kAll);
  Join(SpecialClock(kAll), clock);
  if (device) {
    SaveSpecial(kDeviceAll);
    Join(SpecialClock(kDeviceAll), clock);
  }
  SaveActorClock(actor);
  Copy(&actor_clocks_[actor * width_], clock);
  steps_.push_back({actor, step});
  if (actor >= actor_steps_.size()) actor_steps_.resize(actor + 1);
  actor_steps_[actor].push_back(static_cast<std::uint32_t>(index));
  return index;
}

absl::InlinedVector<ActorId, 4> HappensBefore::Initials(std::size_t i, ActorId actor,
                                                        const Footprint& step,
                                                        std::size_t end) const {
  end = std::min(end, steps_.size());
  const ActorId racer = steps_[i].actor;
  // first_in_v[r]: 1 + index of actor r's first step in v, 0 if none yet.
  scratch_.assign(2 * width_, 0);
  Entry* const first_in_v = &scratch_[0];
  auto has_predecessor_in_v = [&](const Entry* clock) {
    for (std::uint32_t r = 0; r < width_; ++r) {
      if (first_in_v[r] != 0 && first_in_v[r] <= clock[r]) return true;
    }
    return false;
  };
  absl::InlinedVector<ActorId, 4> initials;
  for (std::size_t j = i + 1; j < end; ++j) {
    const Step& s = steps_[j];
    const Entry* clock = StepClock(j);
    if (Knows(clock, racer, i)) continue;  // happens after i: not in v
    if (first_in_v[s.actor] != 0) continue;
    if (!has_predecessor_in_v(clock)) initials.push_back(s.actor);
    first_in_v[s.actor] = static_cast<Entry>(j + 1);
  }
  const bool actor_in_v = actor < width_ && first_in_v[actor] != 0;
  if (!actor_in_v) {
    Entry* const clock = &scratch_[width_];
    ClockOf(actor, step, clock);
    if (!has_predecessor_in_v(clock)) initials.push_back(actor);
  }
  return initials;
}

void HappensBefore::NotBefore(ActorId actor, std::vector<std::uint32_t>* out) const {
  out->clear();
  const Entry* const clock = ActorClock(actor);
  for (ActorId q = 0; q < actor_steps_.size(); ++q) {
    if (q == actor) continue;
    const std::vector<std::uint32_t>& steps = actor_steps_[q];
    // q's steps before clock[q] happen before the actor's latest step.
    const Entry known = clock != nullptr && q < width_ ? clock[q] : 0;
    out->insert(out->end(), std::lower_bound(steps.begin(), steps.end(), known), steps.end());
  }
  std::sort(out->begin(), out->end());
}

void HappensBefore::ForEachRaceOfLastAsGlobal(absl::FunctionRef<void(std::size_t)> visit) const {
  if (steps_.empty()) return;
  // The last step's clock is its actor's.
  // Taken out of the member for the visit, which may query again.
  std::vector<std::uint32_t> others;
  others.swap(scratch_steps_);
  NotBefore(steps_.back().actor, &others);
  for (std::uint32_t i : others) visit(i);
  scratch_steps_.swap(others);
}

bool HappensBefore::HeldSince(std::uint32_t mutex, ActorId holder, std::size_t until) const {
  const ObjectState* state = Find(mutex);
  if (state == nullptr) return true;
  // The holder declared its unlock just after its last step before `until`.
  const std::vector<std::uint32_t>& own = actor_steps_[holder];
  const auto at = std::lower_bound(own.begin(), own.end(), until);
  const std::size_t declared = at == own.begin() ? 0 : *(at - 1) + 1;
  auto it = std::lower_bound(state->steps.begin(), state->steps.end(), declared);
  for (; it != state->steps.end() && *it < until; ++it) {
    if (!(steps_[*it].footprint.blocking & kLockAttempt)) return false;
  }
  return true;
}

bool HappensBefore::Reversible(std::size_t step, ActorId actor, const Footprint& pending) const {
  const Footprint& earlier = steps_[step].footprint;
  // A GPU step that may poison the context: a trap's end is device-wide, or
  // global where the engine could not be precise.
  auto may_trap = [](const Footprint& f) {
    return f.accesses[0].object == kDeviceWideObject || f.accesses[0].object == kGlobalObject;
  };
  const bool earlier_traps = may_trap(earlier);
  const bool pending_traps = may_trap(pending);
  // A wait after the stream's work, but a copy after a trap.
  if ((earlier.blocking & kStreamWork) && (pending.blocking & kWaitsForIdle) &&
      !(earlier_traps && (pending.blocking & kWokenByTrapDiffers))) {
    return false;
  }
  // A wait on a healthy context, then the stream's work that it waited for:
  // run first, that work would only leave the wait to start later and still
  // wait for the rest. Not a trap, which ends the wait (or, run first, makes
  // it fail at once).
  if ((earlier.blocking & kWaitsOnHealthyContext) && (pending.blocking & kStreamWork) &&
      !pending_traps) {
    return false;
  }
  // A read-only wait on a healthy context, then a launch of work that cannot
  // poison it.
  if ((earlier.blocking & kWaitsOnHealthyContext) && (pending.blocking & kEnqueuesHarmlessWork) &&
      !(earlier.accesses[0].write || earlier.accesses[1].write || earlier.accesses[2].write)) {
    return false;
  }
  // A lock attempt and the holder's unlock, either way round: the attempt
  // blocks while the holder holds the mutex.
  const bool one_mutex = earlier.count == 1 && pending.count == 1 &&
                         earlier.accesses[0].object == pending.accesses[0].object;
  if (one_mutex && (earlier.blocking & kOwnerUnlock) && (pending.blocking & kLockAttempt) &&
      HeldSince(earlier.accesses[0].object, steps_[step].actor, step)) {
    return false;
  }
  if (one_mutex && (earlier.blocking & kLockAttempt) && (pending.blocking & kOwnerUnlock) &&
      HeldSince(pending.accesses[0].object, actor, steps_.size())) {
    return false;
  }
  // A kernel's start and the launch that made its stream runnable.
  if (!Dependent(WithoutLaunches(earlier), WithoutLaunches(pending))) return false;
  return true;
}

bool HappensBefore::HappensBeforeActor(std::size_t step, ActorId actor) const {
  const Entry* const clock = ActorClock(actor);
  return clock != nullptr && Knows(clock, steps_[step].actor, step);
}

bool HappensBefore::Races(std::size_t step, ActorId actor, const Footprint& pending) const {
  return steps_[step].actor != actor && Dependent(steps_[step].footprint, pending) &&
         !HappensBeforeActor(step, actor) && Reversible(step, actor, pending);
}

void HappensBefore::ForEachRaceAmongAll(ActorId actor, const Footprint& pending,
                                        absl::FunctionRef<bool(std::size_t)> visit) const {
  std::vector<std::uint32_t> candidates;  // out of the member: visit may query
  candidates.swap(scratch_steps_);
  NotBefore(actor, &candidates);
  for (std::size_t k = candidates.size(); k-- > 0;) {
    const std::size_t i = candidates[k];
    if (Dependent(steps_[i].footprint, pending) && Reversible(i, actor, pending) && !visit(i)) {
      break;
    }
  }
  scratch_steps_.swap(candidates);
}

void HappensBefore::ForEachRace(ActorId actor, const Footprint& pending,
                                absl::FunctionRef<bool(std::size_t)> visit) const {
  const RaceScope scope = RaceScopeOf(pending);
  if (scope.all) {
    ForEachRaceAmongAll(actor, pending, visit);
    return;
  }
  // Merge, latest first, the steps on the pending step's objects, the
  // global steps, (for a device step) the device-wide ones and (for a step
  // that runs program code) the program-wide ones: no other step can be
  // dependent with it.
  constexpr int kLists = 7;
  const std::vector<std::uint32_t>* lists[kLists] = {&global_steps_};
  std::size_t next[kLists] = {global_steps_.size()};
  for (int a = 0; a < pending.count; ++a) {
    const ObjectState* object = Find(pending.accesses[a].object);
    if (object == nullptr) continue;
    // A read depends, through this object, only on the steps writing it;
    // the reads between them would be scanned for nothing.
    const std::vector<std::uint32_t>& list =
        pending.accesses[a].write ? object->steps : object->writes;
    lists[a + 1] = &list;
    next[a + 1] = list.size();
  }
  if (scope.device) {
    lists[4] = &device_wide_steps_;
    next[4] = device_wide_steps_.size();
  }
  if (pending.program & kRunsProgram) {
    lists[5] = &program_wide_steps_;
    next[5] = program_wide_steps_.size();
  }
  if (pending.held != 0) {
    lists[6] = &breaking_steps_;
    next[6] = breaking_steps_.size();
  }
  std::size_t last_visited = steps_.size();
  while (true) {
    int best = -1;
    for (int l = 0; l < kLists; ++l) {
      if (lists[l] == nullptr || next[l] == 0) continue;
      if (best < 0 || (*lists[l])[next[l] - 1] > (*lists[best])[next[best] - 1]) {
        best = l;
      }
    }
    if (best < 0) return;
    const std::size_t i = (*lists[best])[--next[best]];
    if (i == last_visited) continue;  // on two of the lists
    last_visited = i;
    if (!HappensBeforeActor(i, actor)) {
      if (steps_[i].actor != actor && Dependent(steps_[i].footprint, pending) &&
          Reversible(i, actor, pending) && !visit(i)) {
        return;
      }
      continue;
    }
    // i happens before the actor's next step, and so does every step that
    // happens before i: a global step follows every earlier step, a write of
    // an object every earlier step on that object. None of those races.
    if (best == 0) return;
    if (best <= 3 && Writes(steps_[i].footprint, pending.accesses[best - 1].object)) {
      next[best] = 0;
    }
  }
}

}  // namespace stackcheck::sim
