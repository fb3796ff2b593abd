#include "properties/program/fault_plans.h"

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "sim/program/exec_options.h"

namespace stackcheck::properties {
namespace {

std::vector<std::string> Texts(const std::vector<program::FaultPlan>& plans) {
  std::vector<std::string> out;
  for (const program::FaultPlan& p : plans) out.push_back(program::FormatFaults(p));
  return out;
}

// threads_regions 1 2: two launches, three allocations.
TEST(ExecFaultPlans, OneFaultIsEachUnitInTurn) {
  absl::StatusOr<std::vector<program::FaultPlan>> plans = EveryPlan(2, 3, 1);
  ASSERT_TRUE(plans.ok()) << plans.status();
  EXPECT_EQ(Texts(*plans),
            (std::vector<std::string>{"abort@launch:1", "reject@launch:1", "abort@launch:2",
                                      "reject@launch:2", "oom@alloc:1", "oom@alloc:1,oom@alloc:2",
                                      "oom@alloc:2", "oom@alloc:2,oom@alloc:3", "oom@alloc:3"}));
}

// Counted by hand: launch parts {T1,T2,R1,R2} (one unit) and {T1,R2},{T2,R1}
// (two); allocation parts {1},{2},{3},{1,2},{2,3} (one) and {1,3},{1,2,3}
// (two). 6 + 7 + 4 x 5 = 33.
TEST(ExecFaultPlans, TwoFaultsCombineWhatCanGoTogetherOnce) {
  absl::StatusOr<std::vector<program::FaultPlan>> one = EveryPlan(2, 3, 1);
  absl::StatusOr<std::vector<program::FaultPlan>> two = EveryPlan(2, 3, 2);
  ASSERT_TRUE(one.ok() && two.ok());
  const std::vector<std::string> texts = Texts(*two);
  EXPECT_EQ(texts.size(), 33u);
  EXPECT_EQ(std::set<std::string>(texts.begin(), texts.end()).size(), texts.size())
      << "a plan listed twice";
  // Smaller plans first: the one-fault plans, in their order.
  ASSERT_GE(texts.size(), one->size());
  EXPECT_EQ(std::vector<std::string>(texts.begin(), texts.begin() + one->size()), Texts(*one));
  const std::set<std::string> all(texts.begin(), texts.end());
  for (const char* expected :
       {"abort@launch:1,reject@launch:2", "abort@launch:2,oom@alloc:1,oom@alloc:2",
        "oom@alloc:1,oom@alloc:3", "oom@alloc:1,oom@alloc:2,oom@alloc:3",
        "oom@alloc:3,reject@launch:1"}) {
    EXPECT_EQ(all.count(expected), 1u) << expected;
  }
  for (const char* never : {"abort@launch:1,reject@launch:1", "abort@launch:1,abort@launch:2"}) {
    EXPECT_EQ(all.count(never), 0u) << never;
  }
}

TEST(ExecFaultPlans, NothingToFaultIsNoPlan) {
  absl::StatusOr<std::vector<program::FaultPlan>> plans = EveryPlan(0, 0, 4);
  ASSERT_TRUE(plans.ok());
  EXPECT_TRUE(plans->empty());
}

TEST(ExecFaultPlans, TooManyPlansIsAnErrorNotAnEndlessSearch) {
  absl::StatusOr<std::vector<program::FaultPlan>> plans = EveryPlan(200, 200, 4);
  EXPECT_EQ(plans.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(plans.status().message().find("--exec_max_faults"), std::string::npos);
}

TEST(ExecFaultPlans, ARandomPlanOfOneFaultIsRandomFaults) {
  for (std::uint64_t seed = 1; seed < 200; ++seed) {
    EXPECT_EQ(program::FormatFaults(RandomPlan(seed, 3, 4, 1)),
              program::FormatFaults(RandomFault(seed, 3, 4)));
    const program::FaultPlan p = RandomPlan(seed, 3, 4, 3);
    EXPECT_FALSE(p.abort_at_launch != 0 && p.abort_at_launch == p.reject_at_launch);
    EXPECT_LE(p.abort_at_launch, 3u);
    for (std::uint32_t k : p.oom_at_allocs) EXPECT_LE(k, 5u);  // a pair may reach allocs + 1
  }
}

}  // namespace
}  // namespace stackcheck::properties
