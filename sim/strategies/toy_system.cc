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

std::uint32_t MaxObject(const System& system) {
  std::uint32_t max_object = 0;
  for (const Thread& t : system.threads) {
    for (const Step& s : t.steps) max_object = std::max(max_object, s.object);
  }
  return max_object;
}

// One execution in progress: where each thread is, who holds each mutex,
// and the outcome so far.
class Execution {
 public:
  Execution(const System& system, Strategy& strategy)
      : system_(system),
        strategy_(strategy),
        pc_(system.threads.size(), 0),
        holder_(MaxObject(system) + 1, -1),
        waiting_(system.threads.size(), false) {
    out_.objects.assign(holder_.size(), 0);
    out_.registers.assign(system.threads.size(), 0);
  }

  Outcome Run() && {
    while (true) {
      int current = -1;
      const bool unfinished = OfferRunnable(&current);
      if (runnable_.empty()) {
        out_.deadlock = unfinished;
        return std::move(out_);
      }
      std::size_t index = 0;
      if (!ChooseActor(current, &index) || !Take(runnable_[index].actor)) return std::move(out_);
    }
  }

 private:
  // Fills runnable_ with the threads that can take a step, `current` with
  // the last one's index there (-1 if it is not); false if every thread
  // has finished.
  bool OfferRunnable(int* current) {
    runnable_.clear();
    bool unfinished = false;
    for (std::size_t t = 0; t < pc_.size(); ++t) {
      if (pc_[t] >= system_.threads[t].steps.size()) continue;
      unfinished = true;
      const Step& step = system_.threads[t].steps[pc_[t]];
      if (waiting_[t] && holder_[step.object] != -1) continue;
      if (static_cast<int>(t) == last_) *current = static_cast<int>(runnable_.size());
      runnable_.push_back({static_cast<ActorId>(t), FootprintOf(step)});
    }
    return unfinished;
  }

  // The strategy's choice among runnable_; false, with the error, if it
  // answered out of range.
  bool ChooseActor(int current, std::size_t* index) {
    // Like the engine: a single candidate is only asked about when the
    // strategy wants every step, and that answer is not in the schedule.
    if (runnable_.size() > 1 || strategy_.ObservesEveryStep()) {
      *index = strategy_.NextActor(SchedulingPoint{runnable_, current});
    }
    if (runnable_.size() > 1) out_.choices.push_back(*index);
    if (*index >= runnable_.size()) {
      out_.error = absl::StrFormat("step %d: answer %d among %d runnable", out_.order.size(),
                                   *index, runnable_.size());
      return false;
    }
    return true;
  }

  // Takes thread t's next step; false when the execution ends with it.
  bool Take(ActorId t) {
    const Step& step = system_.threads[t].steps[pc_[t]];
    std::uint64_t& object = out_.objects[step.object];
    switch (step.kind) {
      case Step::Kind::kRead:
        out_.registers[t] = Mix(out_.registers[t], object);
        break;
      case Step::Kind::kWrite:
        object = Mix(object, (std::uint64_t{t} << 32) | pc_[t]);
        break;
      case Step::Kind::kExit:
        // What the other threads did so far is the final state.
        object = Mix(object, (std::uint64_t{t} << 32) | pc_[t]);
        out_.order.push_back(t);
        return false;
      case Step::Kind::kLock:
        if (holder_[step.object] != -1) {
          waiting_[t] = true;
          out_.order.push_back(t);
          last_ = static_cast<int>(t);
          return true;  // the lock step is still to come
        }
        waiting_[t] = false;
        holder_[step.object] = static_cast<int>(t);
        break;
      case Step::Kind::kUnlock:
        holder_[step.object] = -1;
        break;
      case Step::Kind::kChoose: {
        const std::uint64_t value = strategy_.NextNumber(step.n);
        out_.choices.push_back(value);
        if (value >= step.n) {
          out_.error =
              absl::StrFormat("step %d: number %d of %d", out_.order.size(), value, step.n);
          return false;
        }
        object = Mix(object, value);
        break;
      }
    }
    out_.order.push_back(t);
    ++pc_[t];
    last_ = static_cast<int>(t);
    return true;
  }

  const System& system_;
  Strategy& strategy_;
  Outcome out_;
  std::vector<std::size_t> pc_;
  std::vector<int> holder_;  // mutex owner
  // Like the engine's mutex: a lock is a scheduling point even when the
  // mutex is held; taking that step finds it held and waits, and the thread
  // is offered again (to retake the lock) once the mutex is free.
  std::vector<bool> waiting_;
  int last_ = -1;
  std::vector<Candidate> runnable_;
};

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

Outcome Run(const System& system, Strategy& strategy) { return Execution(system, strategy).Run(); }

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
