#include "sim/program/exec_options.h"

#include <vector>

#include "gtest/gtest.h"

namespace stackcheck::program {
namespace {

TEST(FaultPlanTest, EveryKindRoundTrips) {
  for (const char* text :
       {"", "abort@launch:2", "oom@alloc:3,reject@launch:1", "oom@alloc:2,oom@alloc:3",
        "abort@kernel:thread_a:1", "abort@kernel:thread_a$_omp_fn$0:2,oom@alloc:1"}) {
    absl::StatusOr<FaultPlan> plan = ParseFaults(text);
    ASSERT_TRUE(plan.ok()) << text << ": " << plan.status();
    EXPECT_EQ(FormatFaults(*plan), text);
  }
}

TEST(FaultPlanTest, AKernelNameNarrowsTheAbortingLaunch) {
  absl::StatusOr<FaultPlan> plan = ParseFaults("abort@kernel:thread_a:2");
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->abort_at_launch, 2u);
  EXPECT_EQ(plan->abort_kernel, "thread_a");
  EXPECT_EQ(plan->count(), 1);
}

// Several allocation failures: a retry after the first fails too. They are
// kept in call order, whatever order the plan lists them in.
TEST(FaultPlanTest, SeveralAllocationFailures) {
  absl::StatusOr<FaultPlan> plan = ParseFaults("oom@alloc:7,abort@launch:1,oom@alloc:6");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->oom_at_allocs, (std::vector<std::uint32_t>{6, 7}));
  EXPECT_EQ(plan->count(), 3);
  EXPECT_EQ(FormatFaults(*plan), "abort@launch:1,oom@alloc:6,oom@alloc:7");
}

TEST(FaultPlanTest, BadPlansAreRefusedWithTheReason) {
  struct Bad {
    const char* text;
    const char* why;
  };
  for (const Bad& bad :
       {Bad{"abort", "KIND@CALL:N"}, Bad{"abort@launch:0", "N >= 1"},
        Bad{"abort@kernel::1", "needs a kernel name"},
        Bad{"abort@kernel:a:1,abort@launch:2", "the same fault twice"},
        Bad{"abort@launch:1,abort@kernel:a:2", "the same fault twice"},
        Bad{"abort@kernel:a:x", "N >= 1"}, Bad{"oom@alloc:2,oom@alloc:2", "the same fault twice"},
        Bad{"trap@launch:1", "unknown fault"}}) {
    absl::StatusOr<FaultPlan> plan = ParseFaults(bad.text);
    ASSERT_FALSE(plan.ok()) << bad.text;
    EXPECT_NE(plan.status().message().find(bad.why), std::string::npos)
        << bad.text << ": " << plan.status();
  }
}

}  // namespace
}  // namespace stackcheck::program
