// The rules that end a run from outside its search, as a wrapper around the
// strategy: an execution budget, a deadline, an interrupt (a signal), and a
// stop someone else asks for (the first violation, another worker's stop).
// NewExecution answers false once one of them holds, before the inner
// strategy is asked, and reason() says which; a search that ends on its own
// (exhausted, a schedule used up) is not stopped. The search never learns
// why it ended, and a new rule is a field here, not a branch of the run loop.
//
// Only NewExecution is the wrapper's: the engine may hand its scheduling
// points to the inner strategy directly, so the rules cost nothing per step.
#ifndef STACKCHECK_PROPERTIES_STOP_WHEN_H_
#define STACKCHECK_PROPERTIES_STOP_WHEN_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "properties/sampled_clock.h"
#include "sim/strategy.h"

namespace stackcheck::properties {

class StopWhen final : public sim::Strategy {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Reason {
    kNone,
    kBudget,     // max_executions counted
    kDeadline,   // the time budget is spent
    kInterrupt,  // *interrupt was set (a signal)
    kPeer,       // *peer_stopped was set (another worker stopped)
    kAsked,      // Stop() (the first violation, an error)
  };
  struct Rules {
    std::uint64_t max_executions = 0;  // 0: no budget
    // The executions counted so far: the caller's own count, or the one the
    // workers of a split run share (which wins when both are given).
    const std::uint64_t* counted = nullptr;
    const std::atomic<std::uint64_t>* counted_by_all = nullptr;
    Clock::time_point start = Clock::now();
    Clock::time_point deadline = Clock::time_point::max();
    const std::atomic<bool>* interrupt = nullptr;
    const std::atomic<bool>* peer_stopped = nullptr;
  };

  // `inner` must outlive the wrapper.
  StopWhen(sim::Strategy& inner, const Rules& rules)
      : inner_(inner), rules_(rules), clock_(rules.start) {}

  bool NewExecution() override {
    if (reason_ == Reason::kNone) reason_ = Holding();
    started_ = true;
    return reason_ == Reason::kNone && inner_.NewExecution();
  }
  std::size_t NextActor(const sim::SchedulingPoint& point) override {
    return inner_.NextActor(point);
  }
  std::uint64_t NextNumber(std::uint64_t n) override { return inner_.NextNumber(n); }
  bool ObservesEveryStep() const override { return inner_.ObservesEveryStep(); }
  sim::SearchState State(bool estimate) const override { return inner_.State(estimate); }
  absl::Status Finish() override { return inner_.Finish(); }
  void Suspend() override { inner_.Suspend(); }

  // Ends the run before its next execution.
  void Stop() {
    if (reason_ == Reason::kNone) reason_ = Reason::kAsked;
  }
  bool stopped() const { return reason_ != Reason::kNone; }
  Reason reason() const { return reason_; }

 private:
  std::uint64_t Counted() const {
    if (rules_.counted_by_all != nullptr) {
      return rules_.counted_by_all->load(std::memory_order_relaxed);
    }
    return rules_.counted != nullptr ? *rules_.counted : 0;
  }
  // The first rule that holds now. After an execution the clock (read at a
  // stride, see SampledClock) and the interrupt come first, then the
  // counts; before the first, only the counts: a deadline or an interrupt
  // lets a run make one execution at least.
  Reason Holding() {
    if (started_) {
      if (rules_.deadline != Clock::time_point::max() && clock_.Now() >= rules_.deadline) {
        return Reason::kDeadline;
      }
      if (rules_.interrupt != nullptr && rules_.interrupt->load(std::memory_order_relaxed)) {
        return Reason::kInterrupt;
      }
    }
    if (rules_.max_executions != 0 && Counted() >= rules_.max_executions) return Reason::kBudget;
    if (rules_.peer_stopped != nullptr && rules_.peer_stopped->load()) return Reason::kPeer;
    return Reason::kNone;
  }

  sim::Strategy& inner_;
  Rules rules_;
  SampledClock<Clock> clock_;
  Reason reason_ = Reason::kNone;
  bool started_ = false;  // NewExecution was asked before
};

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_STOP_WHEN_H_
