#include "sim/strategies/happens_before.h"

#include <algorithm>

namespace stackcheck::sim {

void HappensBefore::Reset() {
  steps_.clear();
  actor_clock_.clear();
  objects_.clear();
  global_steps_.clear();
  global_clock_.clear();
  all_.clear();
  device_wide_steps_.clear();
  device_wide_clock_.clear();
  device_all_.clear();
  program_wide_steps_.clear();
  program_wide_clock_.clear();
  program_all_.clear();
}

void HappensBefore::Join(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) {
    into[i] = std::max(into[i], from[i]);
  }
}

HappensBefore::Clock HappensBefore::ClockOf(ActorId actor,
                                           const Footprint& step) const {
  Clock clock;
  if (actor < actor_clock_.size()) clock = actor_clock_[actor];
  if (step.program & kProgramWide) Join(clock, program_all_);
  if (step.program & kRunsProgram) Join(clock, program_wide_clock_);
  for (int a = 0; a < step.count; ++a) {
    const Access& access = step.accesses[a];
    if (access.object == kGlobalObject) {
      Join(clock, all_);
      continue;
    }
    Join(clock, global_clock_);
    if (access.object == kDeviceWideObject) {
      Join(clock, device_all_);
      continue;
    }
    if (access.object & kDeviceBit) Join(clock, device_wide_clock_);
    auto it = objects_.find(access.object);
    if (it == objects_.end()) continue;
    Join(clock, it->second.last_write);
    if (access.write) Join(clock, it->second.reads);
  }
  if (clock.size() <= actor) clock.resize(actor + 1, 0);
  clock[actor] = static_cast<std::uint32_t>(steps_.size() + 1);
  return clock;
}

std::size_t HappensBefore::Record(ActorId actor, const Footprint& step) {
  const std::size_t index = steps_.size();
  Clock clock = ClockOf(actor, step);
  bool global = false;
  bool device = false;
  for (int a = 0; a < step.count; ++a) {
    const Access& access = step.accesses[a];
    if (access.object == kGlobalObject) {
      global = true;
      continue;
    }
    if (access.object & kDeviceBit) device = true;
    if (access.object == kDeviceWideObject) {
      device_wide_clock_ = clock;
      device_wide_steps_.push_back(static_cast<std::uint32_t>(index));
      continue;
    }
    ObjectState& object = objects_[access.object];
    if (access.write) {
      object.last_write = clock;
      object.reads.clear();  // the write already follows them
    } else {
      Join(object.reads, clock);
    }
    if (object.steps.empty() || object.steps.back() != index) {
      object.steps.push_back(static_cast<std::uint32_t>(index));
    }
  }
  if (step.program & kProgramWide) {
    program_wide_clock_ = clock;
    program_wide_steps_.push_back(static_cast<std::uint32_t>(index));
  }
  if (step.program & kRunsProgram) Join(program_all_, clock);
  if (global) {
    global_clock_ = clock;
    global_steps_.push_back(static_cast<std::uint32_t>(index));
  }
  Join(all_, clock);
  if (device) Join(device_all_, clock);
  if (actor >= actor_clock_.size()) actor_clock_.resize(actor + 1);
  actor_clock_[actor] = clock;
  steps_.push_back({actor, step, std::move(clock)});
  return index;
}

absl::InlinedVector<ActorId, 4> HappensBefore::Initials(
    std::size_t i, ActorId actor, const Footprint& step, std::size_t end) const {
  end = std::min(end, steps_.size());
  const ActorId racer = steps_[i].actor;
  // first_in_v[r]: 1 + index of actor r's first step in v, 0 if none yet.
  std::vector<std::uint32_t> first_in_v;
  auto has_predecessor_in_v = [&](const Clock& clock) {
    for (std::size_t r = 0; r < first_in_v.size() && r < clock.size(); ++r) {
      if (first_in_v[r] != 0 && first_in_v[r] <= clock[r]) return true;
    }
    return false;
  };
  absl::InlinedVector<ActorId, 4> initials;
  for (std::size_t j = i + 1; j < end; ++j) {
    const Step& s = steps_[j];
    if (Knows(s.clock, racer, i)) continue;  // happens after i: not in v
    if (s.actor < first_in_v.size() && first_in_v[s.actor] != 0) continue;
    if (!has_predecessor_in_v(s.clock)) initials.push_back(s.actor);
    if (s.actor >= first_in_v.size()) first_in_v.resize(s.actor + 1, 0);
    first_in_v[s.actor] = static_cast<std::uint32_t>(j + 1);
  }
  const bool actor_in_v =
      actor < first_in_v.size() && first_in_v[actor] != 0;
  if (!actor_in_v && !has_predecessor_in_v(ClockOf(actor, step))) {
    initials.push_back(actor);
  }
  return initials;
}

void HappensBefore::ForEachRaceOfLastAsGlobal(
    absl::FunctionRef<void(std::size_t)> visit) const {
  if (steps_.empty()) return;
  const Step& last = steps_.back();
  for (std::size_t i = 0; i + 1 < steps_.size(); ++i) {
    const ActorId owner = steps_[i].actor;
    if (owner != last.actor && !Knows(last.clock, owner, i)) visit(i);
  }
}

bool HappensBefore::HappensBeforeActor(std::size_t step, ActorId actor) const {
  if (actor >= actor_clock_.size()) return false;
  const Clock& clock = actor_clock_[actor];
  const ActorId owner = steps_[step].actor;
  return owner < clock.size() && clock[owner] >= step + 1;
}

bool HappensBefore::Races(std::size_t step, ActorId actor,
                          const Footprint& pending) const {
  return steps_[step].actor != actor &&
         Dependent(steps_[step].footprint, pending) &&
         !HappensBeforeActor(step, actor);
}

void HappensBefore::ForEachRace(
    ActorId actor, const Footprint& pending,
    absl::FunctionRef<bool(std::size_t)> visit) const {
  // A program-wide step can race with any program step: scan them all.
  bool pending_global = (pending.program & kProgramWide) != 0;
  bool pending_device = false;
  for (int a = 0; a < pending.count; ++a) {
    const std::uint32_t object = pending.accesses[a].object;
    // A device-wide step can race with any device step: scan them all.
    pending_global |= object == kGlobalObject || object == kDeviceWideObject;
    pending_device |= (object & kDeviceBit) != 0;
  }
  if (pending_global) {
    for (std::size_t i = steps_.size(); i-- > 0;) {
      if (Races(i, actor, pending) && !visit(i)) return;
    }
    return;
  }
  // Merge, latest first, the steps on the pending step's objects, the
  // global steps, (for a device step) the device-wide ones and (for a step
  // that runs program code) the program-wide ones: no other step can be
  // dependent with it.
  constexpr int kLists = 6;
  const std::vector<std::uint32_t>* lists[kLists] = {&global_steps_};
  std::size_t next[kLists] = {global_steps_.size()};
  for (int a = 0; a < pending.count; ++a) {
    auto it = objects_.find(pending.accesses[a].object);
    if (it == objects_.end()) continue;
    lists[a + 1] = &it->second.steps;
    next[a + 1] = it->second.steps.size();
  }
  if (pending_device) {
    lists[4] = &device_wide_steps_;
    next[4] = device_wide_steps_.size();
  }
  if (pending.program & kRunsProgram) {
    lists[5] = &program_wide_steps_;
    next[5] = program_wide_steps_.size();
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
    if (Races(i, actor, pending) && !visit(i)) return;
  }
}

}  // namespace stackcheck::sim
