#include "sim/monitors/use_after_free.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

TEST(UseAfterFreeTest, ReuseAfterTheKernelEndsHolds) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .End(1)
      .Enqueue(kT1, 2, 0, 2, 0x200000, 64, 128 * kKiB)
      .Start(2)
      .End(2)
      .Free(kT1, 0x200000, 8 * kMiB);
  UseAfterFreeMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(UseAfterFreeTest, KernelStartingOnAFreedBlock) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Free(kT1, 0x200000, 8 * kMiB)                    // event 1
      .Enqueue(kT2, 3, 0, 2, 0x200000, 64, 128 * kKiB)  // stale pointer
      .Start(3);
  UseAfterFreeMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "no-use-after-free");
  EXPECT_EQ(v->event_index, 3u);
  EXPECT_EQ(v->message,
            "kernel 3 (region 2) started on stacks 0x200000+8MiB in block "
            "0x200000+8MiB freed by T1 at event 1 (enqueued by T2 at event 2)");
}

TEST(UseAfterFreeTest, FreeUnderAQueuedKernelInNoWaitMode) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Free(kCb, 0x200000, 8 * kMiB);  // no-wait cuMemFree before the start
  UseAfterFreeMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->event_index, 2u);
  EXPECT_THAT(v->message, HasSubstr("freed by CB at event 2 while kernel 1 "
                                    "(region 1), enqueued on stream 0 by T1"));
  EXPECT_THAT(v->message, HasSubstr("still queued"));
}

TEST(UseAfterFreeTest, FreeUnderARunningKernel) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .Free(kT2, 0x200000, 8 * kMiB);
  UseAfterFreeMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("is running on it since event 2"));
}

TEST(UseAfterFreeTest, FreedAndReallocatedStillCountsAsFreed) {
  // The block the kernel was enqueued on went away; a new block at the same
  // address must not hide that.
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Add(kT1, EventKind::kKernelDropped, payload::Kernel{1})  // dropped: no longer in flight
      .Free(kT1, 0x200000, 8 * kMiB)
      .Alloc(kT2, 0x200000, 16 * kMiB)
      .Enqueue(kT2, 2, 0, 2, 0x200000, 64, 128 * kKiB)
      .Start(2)
      .End(2);
  UseAfterFreeMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(UseAfterFreeTest, NeverAllocatedStacks) {
  Trace t;
  t.Enqueue(kT1, 1, 0, 1, 0x900000, 1, 128 * kKiB).Start(1);
  UseAfterFreeMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("never allocated"));
}

TEST(UseAfterFreeTest, TeardownUnderAQueuedKernelUnlessSticky) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Add(kT0, EventKind::kCtxDestroy);
  UseAfterFreeMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("context teardown by T0"));
  FakeSimView poisoned;
  poisoned.sticky = true;
  EXPECT_EQ(Feed(m, t, poisoned), std::nullopt);
}

TEST(UseAfterFreeTest, ResetForgetsThePreviousExecution) {
  Trace first;
  first.Alloc(kT1, 0x200000, 8 * kMiB);
  Trace second;
  second.Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB).Start(1);
  UseAfterFreeMonitor m;
  EXPECT_EQ(Feed(m, first, FakeSimView{}), std::nullopt);
  EXPECT_TRUE(Feed(m, second, FakeSimView{}).has_value());
}

}  // namespace
}  // namespace stackcheck::sim
