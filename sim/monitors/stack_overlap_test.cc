#include "sim/monitors/stack_overlap.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

TEST(StackOverlapTest, SameBlockOneAfterTheOtherHolds) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Enqueue(kT2, 2, 0, 2, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .End(1)
      .Start(2)
      .End(2);
  StackOverlapMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(StackOverlapTest, DisjointHalvesRunTogether) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 1, 1, 0x200000, 32, 128 * kKiB)
      .Enqueue(kT2, 2, 2, 2, 0x600000, 32, 128 * kKiB)
      .Start(1, 1)
      .Start(2, 2);
  StackOverlapMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(StackOverlapTest, TwoRunningKernelsSharingSlots) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 1, 1, 0x200000, 64, 128 * kKiB)
      .Enqueue(kT2, 2, 2, 2, 0x400000, 16, 128 * kKiB)
      .Start(1, 1)
      .Start(2, 2);
  StackOverlapMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "no-stack-overlap");
  EXPECT_EQ(v->event_index, 4u);
  EXPECT_EQ(v->message,
            "kernel 2 (region 2) started on stacks 0x400000+2MiB (stream 2) "
            "while kernel 1 (region 1) still runs on 0x200000+8MiB (stream 1, "
            "started at event 3): their warp slots share 0x400000+2MiB");
}

TEST(StackOverlapTest, BlockTooSmallForTheGeometry) {
  Trace t;
  t.Alloc(kT1, 0x200000, 4 * kMiB).Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB);
  StackOverlapMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message,
            "T1 enqueued kernel 1 (region 1) needing 8 MiB of stacks (64 warps "
            "x 128 KiB) from 0x200000, but block 0x200000+4MiB ends 4 MiB "
            "short: its last warps write past the block");
}

}  // namespace
}  // namespace stackcheck::sim
