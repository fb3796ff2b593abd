// Small deterministic strategies for the engine's own tests.
#ifndef STACKCHECK_SIM_TEST_STRATEGIES_H_
#define STACKCHECK_SIM_TEST_STRATEGIES_H_

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/strategy.h"

namespace stackcheck::sim::testing {

// Keeps the actor that moved last while it can; otherwise the lowest id, or
// the first candidate `prefer` accepts.
class NonPreemptive : public Strategy {
 public:
  NonPreemptive() = default;
  explicit NonPreemptive(std::function<bool(ActorId)> prefer) : prefer_(std::move(prefer)) {}
  bool NewExecution() override { return true; }
  std::size_t NextActor(const SchedulingPoint& point) override {
    if (point.current >= 0) return static_cast<std::size_t>(point.current);
    if (prefer_) {
      for (std::size_t i = 0; i < point.runnable.size(); ++i) {
        if (prefer_(point.runnable[i].actor)) return i;
      }
    }
    return 0;
  }
  std::uint64_t NextNumber(std::uint64_t) override { return 0; }

 private:
  std::function<bool(ActorId)> prefer_;
};

// Always the first candidate whose actor `prefer` accepts, else the lowest id:
// a fixed priority order, preempting whenever a preferred actor can move.
class Priority : public Strategy {
 public:
  explicit Priority(std::function<int(ActorId)> rank) : rank_(std::move(rank)) {}
  bool NewExecution() override { return true; }
  std::size_t NextActor(const SchedulingPoint& point) override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < point.runnable.size(); ++i) {
      if (rank_(point.runnable[i].actor) < rank_(point.runnable[best].actor)) best = i;
    }
    return best;
  }
  std::uint64_t NextNumber(std::uint64_t) override { return 0; }

 private:
  std::function<int(ActorId)> rank_;
};

// SplitMix64-seeded uniform choices: the same seed gives the same schedule.
class SeededRandom : public Strategy {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}
  bool NewExecution() override { return true; }
  std::size_t NextActor(const SchedulingPoint& point) override {
    return static_cast<std::size_t>(Next() % point.runnable.size());
  }
  std::uint64_t NextNumber(std::uint64_t n) override { return Next() % n; }

 private:
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

// Replays recorded NextActor answers; past their end, or where an answer does
// not fit, it picks 0 and remembers the mismatch.
class Replay : public Strategy {
 public:
  explicit Replay(std::vector<std::uint64_t> choices) : choices_(std::move(choices)) {}
  bool NewExecution() override { return true; }
  std::size_t NextActor(const SchedulingPoint& point) override {
    if (next_ >= choices_.size() || choices_[next_] >= point.runnable.size()) {
      mismatched_ = true;
      ++next_;
      return 0;
    }
    return static_cast<std::size_t>(choices_[next_++]);
  }
  std::uint64_t NextNumber(std::uint64_t) override { return 0; }
  bool exact() const { return !mismatched_ && next_ == choices_.size(); }

 private:
  std::vector<std::uint64_t> choices_;
  std::size_t next_ = 0;
  bool mismatched_ = false;
};

}  // namespace stackcheck::sim::testing

#endif  // STACKCHECK_SIM_TEST_STRATEGIES_H_
