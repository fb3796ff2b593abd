#include "sim/strategies/strict_sequence_strategy.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/strategies/sequence_strategy.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;

// Three runnable actors, actor 1 (index 1) the current one.
SchedulingPoint Point(const std::vector<Candidate>& candidates, int current) {
  return SchedulingPoint{candidates, current};
}

const std::vector<Candidate> kThree = {{0, {}}, {1, {}}, {2, {}}};

TEST(StrictSequenceStrategy, AnswersAsSequenceStrategyDoes) {
  const std::vector<std::uint64_t> values = {2, 1, 0, 4};
  StrictSequenceStrategy strict(values);
  SequenceStrategy lenient(values);
  ASSERT_TRUE(strict.NewExecution());
  ASSERT_TRUE(lenient.NewExecution());
  EXPECT_EQ(strict.NextActor(Point(kThree, 1)), lenient.NextActor(Point(kThree, 1)));
  EXPECT_EQ(strict.NextActor(Point(kThree, -1)), lenient.NextActor(Point(kThree, -1)));
  EXPECT_EQ(strict.NextActor(Point(kThree, 2)), lenient.NextActor(Point(kThree, 2)));
  EXPECT_EQ(strict.NextNumber(5), lenient.NextNumber(5));
  // Past the end: the defaults the stored form leaves out.
  EXPECT_EQ(strict.NextActor(Point(kThree, 2)), 2u);
  EXPECT_EQ(strict.NextNumber(3), 0u);
  EXPECT_TRUE(strict.Finish().ok()) << strict.status();
}

TEST(StrictSequenceStrategy, AValueOutOfRangeNamesTheStep) {
  StrictSequenceStrategy strict({0, 999999999999});
  ASSERT_TRUE(strict.NewExecution());
  strict.NextActor(Point(kThree, 0));
  EXPECT_EQ(strict.NextActor(Point(kThree, 0)), 0u);
  EXPECT_THAT(strict.status().message(), HasSubstr("replay step 1: choice 999999999999"));
  EXPECT_THAT(strict.status().message(), HasSubstr("valid: 0..2"));
  EXPECT_EQ(strict.NextNumber(7), 0u);  // answers 0 after an error
  EXPECT_FALSE(strict.Finish().ok());
}

TEST(StrictSequenceStrategy, ANumberOutOfRangeNamesTheStep) {
  StrictSequenceStrategy strict({3});
  ASSERT_TRUE(strict.NewExecution());
  strict.NextNumber(3);
  EXPECT_THAT(strict.status().message(), HasSubstr("replay step 0: choice 3"));
}

TEST(StrictSequenceStrategy, ValuesLeftOverAreAnError) {
  StrictSequenceStrategy strict({1, 1, 1});
  ASSERT_TRUE(strict.NewExecution());
  strict.NextActor(Point(kThree, 0));
  EXPECT_TRUE(strict.status().ok());
  const absl::Status s = strict.Finish();
  EXPECT_THAT(s.message(), HasSubstr("replay step 1: the execution ended after 1 choices"));
  EXPECT_FALSE(strict.NewExecution());
}

TEST(StrictSequenceStrategy, AnEmptyScheduleIsTheDefaultOne) {
  StrictSequenceStrategy strict({});
  ASSERT_TRUE(strict.NewExecution());
  EXPECT_EQ(strict.NextActor(Point(kThree, 1)), 1u);
  EXPECT_EQ(strict.NextActor(Point(kThree, -1)), 0u);
  EXPECT_TRUE(strict.Finish().ok());
}

}  // namespace
}  // namespace stackcheck::sim
