#include "properties/sampled_clock.h"

#include <chrono>
#include <cstdint>

#include "gtest/gtest.h"

namespace stackcheck::properties {
namespace {

// A clock the test moves by hand; counts how often it is read.
struct FakeClock {
  using duration = std::chrono::microseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<FakeClock>;
  static constexpr bool is_steady = true;
  static inline time_point now_value{};
  static inline int reads = 0;
  static time_point now() {
    ++reads;
    return now_value;
  }
};

// `n` executions of `each`, the clock asked after every one.
template <typename Duration>
void RunExecutions(SampledClock<FakeClock>& clock, int n, Duration each) {
  for (int i = 0; i < n; ++i) {
    FakeClock::now_value += each;
    clock.Now();
  }
}

class SampledClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeClock::now_value = FakeClock::time_point{};
    FakeClock::reads = 0;
  }
};

TEST_F(SampledClockTest, FirstCallReadsTheClock) {
  SampledClock<FakeClock> clock(FakeClock::time_point{}, std::chrono::milliseconds(1));
  FakeClock::now_value += std::chrono::microseconds(7);
  EXPECT_EQ(clock.Now(), FakeClock::now_value);
  EXPECT_EQ(FakeClock::reads, 1);
}

TEST_F(SampledClockTest, QuickExecutionsAreReadLessOftenUpToTheCap) {
  SampledClock<FakeClock> clock(FakeClock::time_point{}, std::chrono::milliseconds(1));
  // 3 us an execution: the stride doubles to its cap of 64 (192 us apart).
  RunExecutions(clock, 2000, std::chrono::microseconds(3));
  EXPECT_EQ(clock.stride(), 64u);
  EXPECT_LT(FakeClock::reads, 2000 / 64 + 8);
}

TEST_F(SampledClockTest, StaleByAtMostTheFineIntervalWhileExecutionsKeepTheirPace) {
  SampledClock<FakeClock> clock(FakeClock::time_point{}, std::chrono::milliseconds(1));
  for (int i = 0; i < 5000; ++i) {
    FakeClock::now_value += std::chrono::microseconds(40);
    const auto seen = clock.Now();
    EXPECT_LE(FakeClock::now_value - seen, std::chrono::milliseconds(1)) << "execution " << i;
  }
}

TEST_F(SampledClockTest, SlowExecutionsAreReadEveryTime) {
  SampledClock<FakeClock> clock(FakeClock::time_point{}, std::chrono::milliseconds(1));
  RunExecutions(clock, 100, std::chrono::microseconds(3));
  ASSERT_GT(clock.stride(), 1u);
  // Executions turn slow: the read that sees it drops the stride to one.
  RunExecutions(clock, 200, std::chrono::milliseconds(2));
  EXPECT_EQ(clock.stride(), 1u);
  const int reads = FakeClock::reads;
  for (int i = 0; i < 10; ++i) {
    FakeClock::now_value += std::chrono::milliseconds(2);
    EXPECT_EQ(clock.Now(), FakeClock::now_value);
  }
  EXPECT_EQ(FakeClock::reads, reads + 10);
}

}  // namespace
}  // namespace stackcheck::properties
