#include "sim/strategies/replay_strategy.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/strategies/random_strategy.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;

toy::System SmallSystem() {
  toy::System system;
  system.threads.push_back({{toy::Write(1), toy::Choose(2, 3), toy::Write(1)}});
  system.threads.push_back({{toy::Read(1), toy::Write(2)}});
  return system;
}

TEST(ReplayStrategy, ReproducesARecordedExecution) {
  RandomStrategy random({/*seed=*/11, /*max_executions=*/20});
  for (const toy::Outcome& recorded : toy::RunAll(SmallSystem(), random)) {
    ReplayStrategy replay(recorded.choices);
    ASSERT_TRUE(replay.NewExecution());
    const toy::Outcome again = toy::Run(SmallSystem(), replay);
    EXPECT_EQ(again.order, recorded.order);
    EXPECT_EQ(again.FinalState(), recorded.FinalState());
    EXPECT_TRUE(replay.Finish().ok()) << replay.status();
    EXPECT_EQ(replay.used(), recorded.choices.size());
    EXPECT_FALSE(replay.NewExecution());  // a replay is one execution
    EXPECT_TRUE(replay.status().ok());
  }
}

TEST(ReplayStrategy, AChoiceOutOfRangeNamesTheStep) {
  // Step 0: 2 runnable; step 1: thread 0 again (index 0 of 2); step 2 is the
  // number choice among 3, given 7.
  ReplayStrategy replay({0, 0, 7, 0, 0, 0});
  ASSERT_TRUE(replay.NewExecution());
  const toy::Outcome o = toy::Run(SmallSystem(), replay);
  EXPECT_EQ(o.error, "");  // answered 0 instead, and the run finished
  EXPECT_EQ(o.order.size(), 5u);
  EXPECT_EQ(replay.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(replay.status().message()),
              HasSubstr("replay step 2: choice 7 is out of range for a choice "
                        "among 3 numbers (valid: 0..2)"));
  EXPECT_FALSE(replay.Finish().ok());
}

TEST(ReplayStrategy, AnActorChoiceOutOfRangeNamesTheStep) {
  ReplayStrategy replay({5});
  ASSERT_TRUE(replay.NewExecution());
  toy::Run(SmallSystem(), replay);
  EXPECT_THAT(std::string(replay.status().message()),
              HasSubstr("replay step 0: choice 5 is out of range for a choice "
                        "among 2 runnable actors"));
}

TEST(ReplayStrategy, AListTooShortNamesTheStep) {
  ReplayStrategy replay({1, 0});
  ASSERT_TRUE(replay.NewExecution());
  const toy::Outcome o = toy::Run(SmallSystem(), replay);
  EXPECT_EQ(o.order.size(), 5u);
  EXPECT_THAT(std::string(replay.status().message()),
              HasSubstr("replay step 2: the schedule has only 2 choices"));
}

TEST(ReplayStrategy, AListTooLongIsAnError) {
  RandomStrategy random({/*seed=*/1, /*max_executions=*/1});
  std::vector<toy::Outcome> recorded = toy::RunAll(SmallSystem(), random);
  std::vector<std::uint64_t> choices = recorded[0].choices;
  const std::size_t needed = choices.size();
  choices.push_back(0);
  ReplayStrategy replay(choices);
  ASSERT_TRUE(replay.NewExecution());
  EXPECT_EQ(toy::Run(SmallSystem(), replay).order, recorded[0].order);
  EXPECT_TRUE(replay.status().ok());
  const absl::Status finished = replay.Finish();
  EXPECT_THAT(std::string(finished.message()),
              HasSubstr(absl::StrFormat("replay step %d: the execution ended "
                                        "but the schedule has %d choices",
                                        needed, needed + 1)));
}

TEST(ReplayStrategy, AnEmptyListOnAnEmptyRunIsFine) {
  ReplayStrategy replay({});
  ASSERT_TRUE(replay.NewExecution());
  EXPECT_TRUE(replay.Finish().ok());
}

}  // namespace
}  // namespace stackcheck::sim
