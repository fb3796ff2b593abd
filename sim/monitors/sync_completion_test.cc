#include "sim/monitors/sync_completion.h"

#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using namespace ::stackcheck::sim::monitor_testing;

TEST(SyncCompletionTest, SynchronousRunHolds) {  // V0 / V2
  Trace t;
  t.RegionBegin(kT1, 1)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .End(1)
      .RegionEnd(kT1, 1);
  SyncCompletionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(SyncCompletionTest, OtherThreadsKernelsDoNotCount) {
  Trace t;
  t.RegionBegin(kT1, 1).Enqueue(kT2, 2, 0, 2, 0x200000, 64, 128 * kKiB).RegionEnd(kT1, 1);
  SyncCompletionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(SyncCompletionTest, RunReturnsWhileTheKernelRuns) {  // V1
  Trace t;
  t.RegionBegin(kT1, 1).Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB).Start(1).RegionEnd(kT1, 1);
  SyncCompletionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "sync-completion");
  EXPECT_EQ(v->event_index, 3u);
  EXPECT_EQ(v->message,
            "run(region 1) returned on T1 while its kernel 1 (region 1), "
            "enqueued at event 1, was still running (since event 2)");
}

TEST(SyncCompletionTest, RunReturnsWhileTheKernelIsQueued) {
  Trace t;
  t.RegionBegin(kT1, 1).Enqueue(kT1, 1, 3, 1, 0x200000, 64, 128 * kKiB).RegionEnd(kT1, 1);
  SyncCompletionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message,
            "run(region 1) returned on T1 while its kernel 1 (region 1), "
            "enqueued at event 1, was still queued on stream 3");
}

}  // namespace
}  // namespace stackcheck::sim
