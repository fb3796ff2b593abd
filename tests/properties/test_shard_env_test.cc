#include "tests/properties/test_shard_env.h"

#include <vector>

#include "gtest/gtest.h"

namespace stackcheck::properties::testing {
namespace {

TEST(ShardFromEnvironment, UnsetMeansOneShard) {
  absl::StatusOr<TestShard> s = ShardFromEnvironment(nullptr, nullptr);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->count, 1);
  EXPECT_EQ(s->index, 0);
}

TEST(ShardFromEnvironment, AcceptsEveryShardOfAValidCount) {
  for (const char* index : {"0", "1", "2"}) {
    absl::StatusOr<TestShard> s = ShardFromEnvironment("3", index);
    ASSERT_TRUE(s.ok()) << index << ": " << s.status();
    EXPECT_EQ(s->count, 3);
  }
  EXPECT_EQ(ShardFromEnvironment("3", "2")->index, 2);
}

TEST(ShardFromEnvironment, RejectsABadCount) {
  for (const char* total :
       {"0", "", "abc", "-1", "+2", " 2", "2x", "6001", "2147483647", "99999999999999999999"}) {
    EXPECT_FALSE(ShardFromEnvironment(total, "0").ok()) << "TEST_TOTAL_SHARDS=" << total;
  }
}

TEST(ShardFromEnvironment, RejectsAnIndexOutsideTheCount) {
  for (const char* index : {"3", "5", "-1", "", "x", "1.0"}) {
    absl::StatusOr<TestShard> s = ShardFromEnvironment("3", index);
    EXPECT_FALSE(s.ok()) << "TEST_SHARD_INDEX=" << index;
  }
}

TEST(ShardFromEnvironment, RejectsOneVariableWithoutTheOther) {
  EXPECT_FALSE(ShardFromEnvironment("2", nullptr).ok());
  EXPECT_FALSE(ShardFromEnvironment(nullptr, "0").ok());
}

TEST(ShardFromEnvironment, EscapesTheValueInItsMessage) {
  absl::StatusOr<TestShard> s = ShardFromEnvironment("\x1b[2J", "0");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message().find('\x1b'), absl::string_view::npos) << s.status();
}

TEST(TestShard, SampledItemsAreDealtToExactlyOneShardEach) {
  for (int every : {1, 2, 4}) {
    std::vector<int> per_shard(3);
    for (int k = 0; k < 100; ++k) {
      int owners = 0;
      for (int i = 0; i < 3; ++i) {
        if (TestShard{i, 3}.OwnsSampled(k, every)) {
          ++owners;
          ++per_shard[i];
        }
      }
      EXPECT_EQ(owners, k % every == 0 ? 1 : 0) << "item " << k << ", every " << every;
    }
    const int sampled = (100 + every - 1) / every;
    for (int n : per_shard) EXPECT_LE(n, sampled / 3 + 1);
  }
}

TEST(RapidCheckParams, GivesEachShardItsSeedAndShare) {
  EXPECT_EQ(RapidCheckParams(nullptr, TestShard{2, 4}),
            "seed=1002 max_success=1500 verbose_progress=0");
  EXPECT_EQ(RapidCheckParams(nullptr, TestShard{0, kTotalCases}),
            "seed=1000 max_success=1 verbose_progress=0");
}

TEST(RapidCheckParams, KeepsTheUsersSettingsAndAddsTheRest) {
  EXPECT_EQ(RapidCheckParams("verbose_shrinking=1", TestShard{1, 2}),
            "verbose_shrinking=1 seed=1001 max_success=3000 verbose_progress=0");
  EXPECT_EQ(RapidCheckParams("seed=7 max_success=10", TestShard{1, 2}),
            "seed=7 max_success=10 verbose_progress=0");
}

TEST(RapidCheckParams, LeavesAReproductionAlone) {
  EXPECT_EQ(RapidCheckParams("reproduce=BchdlNGdvJ3XzIXY", TestShard{1, 2}),
            "reproduce=BchdlNGdvJ3XzIXY");
}

}  // namespace
}  // namespace stackcheck::properties::testing
