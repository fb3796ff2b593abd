#include "sim/strategies/toy_system.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace stackcheck::sim::toy {
namespace {

std::uint64_t Mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Footprint FootprintOf(const Step& step) {
  Footprint f;
  f.count = 1;
  f.accesses[0].object = step.object;
  f.accesses[0].write = step.kind != Step::Kind::kRead;
  return f;
}

}  // namespace

Step Read(std::uint32_t object) { return {Step::Kind::kRead, object, 1}; }
Step Write(std::uint32_t object) { return {Step::Kind::kWrite, object, 1}; }
Step Lock(std::uint32_t mutex) { return {Step::Kind::kLock, mutex, 1}; }
Step Unlock(std::uint32_t mutex) { return {Step::Kind::kUnlock, mutex, 1}; }
Step Choose(std::uint32_t object, std::uint64_t n) { return {Step::Kind::kChoose, object, n}; }
Step Exit(std::uint32_t object) { return {Step::Kind::kExit, object, 1}; }

std::uint64_t Outcome::FinalState() const {
  std::uint64_t h = deadlock ? 1 : 0;
  for (std::uint64_t v : objects) h = Mix(h, v);
  for (std::uint64_t v : registers) h = Mix(h, v);
  return h;
}

Outcome Run(const System& system, Strategy& strategy) {
  const std::size_t n = system.threads.size();
  std::uint32_t max_object = 0;
  for (const Thread& t : system.threads) {
    for (const Step& s : t.steps) max_object = std::max(max_object, s.object);
  }
  Outcome out;
  out.objects.assign(max_object + 1, 0);
  out.registers.assign(n, 0);
  std::vector<std::size_t> pc(n, 0);
  std::vector<int> holder(max_object + 1, -1);  // mutex owner
  // Like the engine's mutex: a lock is a scheduling point even when the
  // mutex is held; taking that step finds it held and waits, and the thread
  // is offered again (to retake the lock) once the mutex is free.
  std::vector<bool> waiting(n, false);
  int last = -1;
  std::vector<Candidate> runnable;
  while (true) {
    runnable.clear();
    int current = -1;
    bool unfinished = false;
    for (std::size_t t = 0; t < n; ++t) {
      if (pc[t] >= system.threads[t].steps.size()) continue;
      unfinished = true;
      const Step& step = system.threads[t].steps[pc[t]];
      if (waiting[t] && holder[step.object] != -1) continue;
      if (static_cast<int>(t) == last) current = static_cast<int>(runnable.size());
      runnable.push_back({static_cast<ActorId>(t), FootprintOf(step)});
    }
    if (runnable.empty()) {
      out.deadlock = unfinished;
      return out;
    }
    // Like the engine: a single candidate is only asked about when the
    // strategy wants every step, and that answer is not in the schedule.
    std::size_t index = 0;
    if (runnable.size() > 1 || strategy.ObservesEveryStep()) {
      index = strategy.NextActor(SchedulingPoint{runnable, current});
    }
    if (runnable.size() > 1) out.choices.push_back(index);
    if (index >= runnable.size()) {
      out.error = absl::StrFormat("step %d: answer %d among %d runnable", out.order.size(), index,
                                  runnable.size());
      return out;
    }
    const ActorId t = runnable[index].actor;
    const Step& step = system.threads[t].steps[pc[t]];
    std::uint64_t& object = out.objects[step.object];
    switch (step.kind) {
      case Step::Kind::kRead:
        out.registers[t] = Mix(out.registers[t], object);
        break;
      case Step::Kind::kWrite:
        object = Mix(object, (std::uint64_t{t} << 32) | pc[t]);
        break;
      case Step::Kind::kExit:
        // What the other threads did so far is the final state.
        object = Mix(object, (std::uint64_t{t} << 32) | pc[t]);
        out.order.push_back(t);
        return out;
      case Step::Kind::kLock:
        if (holder[step.object] != -1) {
          waiting[t] = true;
          out.order.push_back(t);
          last = static_cast<int>(t);
          continue;  // the lock step is still to come
        }
        waiting[t] = false;
        holder[step.object] = static_cast<int>(t);
        break;
      case Step::Kind::kUnlock:
        holder[step.object] = -1;
        break;
      case Step::Kind::kChoose: {
        const std::uint64_t value = strategy.NextNumber(step.n);
        out.choices.push_back(value);
        if (value >= step.n) {
          out.error = absl::StrFormat("step %d: number %d of %d", out.order.size(), value, step.n);
          return out;
        }
        object = Mix(object, value);
        break;
      }
    }
    out.order.push_back(t);
    ++pc[t];
    last = static_cast<int>(t);
  }
}

std::vector<Outcome> RunAll(const System& system, Strategy& strategy, std::size_t limit) {
  std::vector<Outcome> outcomes;
  while (outcomes.size() < limit && strategy.NewExecution()) {
    outcomes.push_back(Run(system, strategy));
  }
  return outcomes;
}

System Writers(int threads, int steps, std::uint32_t (*object_of)(int, int)) {
  System system;
  system.threads.resize(threads);
  for (int t = 0; t < threads; ++t) {
    for (int s = 0; s < steps; ++s) {
      system.threads[t].steps.push_back(Write(object_of(t, s)));
    }
  }
  return system;
}

}  // namespace stackcheck::sim::toy
