#include "sim/libcuda/exec_options.h"

#include "gtest/gtest.h"

namespace stackcheck::libcuda {
namespace {

TEST(FaultPlanTest, EveryKindRoundTrips) {
  for (const char* text : {"", "abort@launch:2", "oom@alloc:3,reject@launch:1",
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

TEST(FaultPlanTest, BadPlansAreRefusedWithTheReason) {
  struct Bad {
    const char* text;
    const char* why;
  };
  for (const Bad& bad : {Bad{"abort", "KIND@CALL:N"}, Bad{"abort@launch:0", "N >= 1"},
                         Bad{"abort@kernel::1", "needs a kernel name"},
                         Bad{"abort@kernel:a:1,abort@launch:2", "the same fault twice"},
                         Bad{"abort@launch:1,abort@kernel:a:2", "the same fault twice"},
                         Bad{"abort@kernel:a:x", "N >= 1"},
                         Bad{"trap@launch:1", "unknown fault"}}) {
    absl::StatusOr<FaultPlan> plan = ParseFaults(bad.text);
    ASSERT_FALSE(plan.ok()) << bad.text;
    EXPECT_NE(plan.status().message().find(bad.why), std::string::npos)
        << bad.text << ": " << plan.status();
  }
}

}  // namespace
}  // namespace stackcheck::libcuda
