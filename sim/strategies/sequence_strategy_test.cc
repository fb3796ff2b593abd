#include "sim/strategies/sequence_strategy.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "sim/strategies/replay_strategy.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim {
namespace {

std::uint32_t SameObject(int, int) { return 1; }

toy::System System() {
  toy::System system = toy::Writers(3, 3, SameObject);
  system.threads[1].steps.push_back(toy::Choose(2, 4));
  return system;
}

int Preemptions(const toy::Outcome& o) {
  // In this system nobody blocks, so a switch before the running thread
  // finished is a preemption; a thread has 3 or 4 steps.
  int preemptions = 0;
  std::vector<int> done(3, 0);
  for (std::size_t i = 0; i < o.order.size(); ++i) {
    ++done[o.order[i]];
    if (i + 1 < o.order.size() && o.order[i + 1] != o.order[i]) {
      const int length = o.order[i] == 1 ? 4 : 3;
      preemptions += done[o.order[i]] < length;
    }
  }
  return preemptions;
}

TEST(SequenceStrategy, AnEmptySequenceGivesTheDefaultSchedule) {
  SequenceStrategy sequence({});
  ASSERT_TRUE(sequence.NewExecution());
  const toy::Outcome o = toy::Run(System(), sequence);
  const std::vector<ActorId> expected = {0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
  EXPECT_EQ(o.order, expected);
  EXPECT_EQ(Preemptions(o), 0);
  EXPECT_FALSE(sequence.NewExecution());
}

TEST(SequenceStrategy, ZerosAreTheDefaultToo) {
  SequenceStrategy zeros(std::vector<std::uint64_t>(50, 0));
  SequenceStrategy empty({});
  ASSERT_TRUE(zeros.NewExecution());
  ASSERT_TRUE(empty.NewExecution());
  EXPECT_EQ(toy::Run(System(), zeros).order, toy::Run(System(), empty).order);
}

TEST(SequenceStrategy, ValuesAreRelativeToTheCurrentActor) {
  // First point: no current actor, 5 mod 3 = 2 picks thread 2. Second: thread
  // 2 is current (index 2), offset 1 wraps to index 0, a preemption.
  SequenceStrategy sequence({5, 1});
  ASSERT_TRUE(sequence.NewExecution());
  const toy::Outcome o = toy::Run(System(), sequence);
  EXPECT_EQ(o.order[0], 2u);
  EXPECT_EQ(o.order[1], 0u);
  EXPECT_EQ(sequence.consumed(), 2u);
  EXPECT_EQ(sequence.effective_choices()[0], 2u);
  EXPECT_EQ(sequence.effective_choices()[1], 0u);
}

RC_GTEST_PROP(SequenceStrategyProperty, EffectiveChoicesReplayTheExecution,
              (const std::vector<std::uint64_t>& values)) {
  SequenceStrategy sequence(values);
  RC_ASSERT(sequence.NewExecution());
  const toy::Outcome o = toy::Run(System(), sequence);
  RC_ASSERT(o.error.empty());
  RC_ASSERT(sequence.effective_choices() == o.choices);
  ReplayStrategy replay(sequence.effective_choices());
  RC_ASSERT(replay.NewExecution());
  const toy::Outcome again = toy::Run(System(), replay);
  RC_ASSERT(again.order == o.order);
  RC_ASSERT(replay.Finish().ok());
}

RC_GTEST_PROP(SequenceStrategyProperty, PreemptionsNeedNonZeroValues,
              (const std::vector<std::uint64_t>& values)) {
  // Each preemption consumes a non-zero value, so zeroing values (what a
  // shrinker does) can only remove preemptions.
  SequenceStrategy sequence(values);
  RC_ASSERT(sequence.NewExecution());
  const toy::Outcome o = toy::Run(System(), sequence);
  int nonzero = 0;
  for (std::size_t i = 0; i < sequence.consumed(); ++i) nonzero += values[i] != 0;
  RC_ASSERT(Preemptions(o) <= nonzero);
}

}  // namespace
}  // namespace stackcheck::sim
