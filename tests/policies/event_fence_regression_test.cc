// Schedules that break a property under a flawed variant of event-fence,
// replayed: under event-fence each must keep its property.
#include <string>
#include <vector>

#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/catalogue.h"
#include "properties/explore.h"
#include "properties/replay_file.h"

namespace stackcheck {
namespace {

// A user allocation's genuine out-of-memory error, raised after another
// thread's abort has poisoned the context, must be reported as itself, not
// with the abort's code (719) against no region (abort-attribution); the
// abort has already been reported against region 5.
constexpr char kOomAfterAbort[] = R"(# stackcheck replay file
stackcheck-replay 2
tool 0.2.0
policy event-fence
property abort-attribution
modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 alloc_granularity=65536 step_bound=20000
device capacity=2621440 soft_limit=262144 close_at_end=1
faults alloc_failure_at_call=2 launch_failure_at_call=0 device_constructors=0 device_destructors=0
thread
run id=1 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
run id=2 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
run id=3 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
run id=4 teams=1 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0 mapped_vars=0
thread
alloc slot=0 bytes=1048576
run id=5 teams=3 warps=3 stack_size_per_warp=131072 duration_ns=1000 aborts=1 mapped_vars=0
thread
run id=6 teams=3 warps=1 stack_size_per_warp=131072 duration_ns=100000 aborts=0 mapped_vars=0
alloc slot=0 bytes=524288
schedule 1 1 0 3 1 2 1 0 1 0 1 1 0 0 0 0 1 1 0 1 0 1 0 1 0 1 0 1 0 0 2 2 1 2 0 0 0 0 0 0 1 1 2 0 1 1 1 1
end
)";

TEST(EventFenceRegressionTest, OomAfterAnotherThreadsAbortKeepsItsOwnCode) {
  absl::StatusOr<properties::ReplayRecord> record = properties::ParseReplayFile(kOomAfterAbort);
  ASSERT_TRUE(record.ok()) << record.status();
  const PolicyInfo* policy = FindPolicy(record->policy);
  ASSERT_NE(policy, nullptr);
  const properties::PropertyInfo* property = properties::FindProperty(record->property);
  ASSERT_NE(property, nullptr);
  const std::vector<const properties::PropertyInfo*> monitored = {property};
  absl::StatusOr<properties::Execution> run =
      properties::Execute(record->test_case, *policy, monitored);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->violation.has_value())
      << run->violation->property << ": " << run->violation->message;
  EXPECT_TRUE(run->process_exited);
}

}  // namespace
}  // namespace stackcheck
