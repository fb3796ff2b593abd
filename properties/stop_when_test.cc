#include "properties/stop_when.h"

#include <atomic>
#include <chrono>
#include <cstdint>

#include "gtest/gtest.h"
#include "sim/strategy.h"

namespace stackcheck::properties {
namespace {

// A search of `left` executions that counts what it was asked.
class CountingStrategy : public sim::Strategy {
 public:
  explicit CountingStrategy(int left) : left_(left) {}
  bool NewExecution() override {
    ++asked;
    return left_-- > 0;
  }
  std::size_t NextActor(const sim::SchedulingPoint&) override { return 0; }
  std::uint64_t NextNumber(std::uint64_t) override { return 0; }
  int asked = 0;

 private:
  int left_;
};

using Reason = StopWhen::Reason;

// Rules whose deadline passed nine seconds before the run begins.
StopWhen::Rules PassedDeadline() {
  StopWhen::Rules rules;
  rules.start = StopWhen::Clock::now() - std::chrono::seconds(10);
  rules.deadline = rules.start + std::chrono::seconds(1);
  return rules;
}

TEST(StopWhenTest, ASearchThatEndsOnItsOwnIsNotStopped) {
  CountingStrategy inner(3);
  StopWhen stop(inner, {});
  int runs = 0;
  while (stop.NewExecution()) ++runs;
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(stop.stopped());
  EXPECT_EQ(stop.reason(), Reason::kNone);
}

TEST(StopWhenTest, TheBudgetCountsTheCallersExecutions) {
  CountingStrategy inner(100);
  std::uint64_t counted = 0;
  StopWhen::Rules rules;
  rules.max_executions = 5;
  rules.counted = &counted;
  StopWhen stop(inner, rules);
  int runs = 0;
  while (stop.NewExecution()) {
    ++runs;
    if (runs % 2 == 0) ++counted;  // every other execution counts (re-runs do not)
  }
  EXPECT_EQ(runs, 10);
  EXPECT_EQ(counted, 5u);
  EXPECT_EQ(stop.reason(), Reason::kBudget);
  // The inner search is not asked once a rule holds.
  EXPECT_EQ(inner.asked, 10);
}

TEST(StopWhenTest, ASharedCountWinsOverTheCallersOwn) {
  CountingStrategy inner(100);
  std::uint64_t own = 0;
  std::atomic<std::uint64_t> all{7};
  StopWhen::Rules rules;
  rules.max_executions = 7;
  rules.counted = &own;
  rules.counted_by_all = &all;
  StopWhen stop(inner, rules);
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_EQ(stop.reason(), Reason::kBudget);
  EXPECT_EQ(inner.asked, 0);
}

TEST(StopWhenTest, APeersStopEndsTheRun) {
  CountingStrategy inner(100);
  std::atomic<bool> peer{false};
  StopWhen::Rules rules;
  rules.peer_stopped = &peer;
  StopWhen stop(inner, rules);
  EXPECT_TRUE(stop.NewExecution());
  peer = true;
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_EQ(stop.reason(), Reason::kPeer);
}

TEST(StopWhenTest, AnInterruptLetsOneExecutionRunThenEndsTheRun) {
  CountingStrategy inner(100);
  std::atomic<bool> interrupt{true};
  StopWhen::Rules rules;
  rules.interrupt = &interrupt;
  StopWhen stop(inner, rules);
  EXPECT_TRUE(stop.NewExecution());
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_EQ(stop.reason(), Reason::kInterrupt);
}

TEST(StopWhenTest, APassedDeadlineLetsOneExecutionRunThenEndsTheRun) {
  CountingStrategy inner(100);
  StopWhen stop(inner, PassedDeadline());
  EXPECT_TRUE(stop.NewExecution());
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_EQ(stop.reason(), Reason::kDeadline);
}

TEST(StopWhenTest, TheClockComesBeforeTheCountsAfterAnExecution) {
  // As the run loop reported it before: an execution that spends both the
  // time and the budget ended the run by its time.
  CountingStrategy inner(100);
  std::uint64_t counted = 0;
  StopWhen::Rules rules = PassedDeadline();
  rules.max_executions = 1;
  rules.counted = &counted;
  StopWhen stop(inner, rules);
  EXPECT_TRUE(stop.NewExecution());
  counted = 1;
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_EQ(stop.reason(), Reason::kDeadline);
}

TEST(StopWhenTest, StopIsKeptAndTheFirstReasonWins) {
  CountingStrategy inner(100);
  std::atomic<bool> peer{false};
  StopWhen::Rules rules;
  rules.peer_stopped = &peer;
  StopWhen stop(inner, rules);
  EXPECT_TRUE(stop.NewExecution());
  stop.Stop();
  peer = true;
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_FALSE(stop.NewExecution());
  EXPECT_EQ(stop.reason(), Reason::kAsked);
  EXPECT_EQ(inner.asked, 1);
}

}  // namespace
}  // namespace stackcheck::properties
