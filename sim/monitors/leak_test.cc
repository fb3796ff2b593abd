#include "sim/monitors/leak.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

// run(region 1) on T1 allocates the stacks block, as every version does.
Trace RegionWithCachedBlock() {
  Trace t;
  t.RegionBegin(kT1, 1)
      .Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .End(1)
      .RegionEnd(kT1, 1);
  return t;
}

TEST(LeakTest, CloseThatFreesTheCacheHolds) {
  Trace t = RegionWithCachedBlock();
  t.Free(kT0, 0x200000, 8 * kMiB).Add(kT0, EventKind::kCtxDestroy);
  LeakMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, /*quiesce=*/true), std::nullopt);
}

TEST(LeakTest, CloseThatForgetsTheCache) {
  Trace t = RegionWithCachedBlock();
  t.Add(kT0, EventKind::kCtxDestroy);
  LeakMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "no-leak");
  EXPECT_EQ(v->event_index, 6u);
  EXPECT_EQ(v->message,
            "T0 tore down the context with 8 MiB of runtime memory in 1 "
            "block(s) never freed: 0x200000+8MiB allocated by T1 at event 1");
}

TEST(LeakTest, ReplacedBlockNeverFreedIsALeakEvenIfTheNewOneIs) {
  Trace t = RegionWithCachedBlock();
  t.RegionBegin(kT1, 2)
      .Alloc(kT1, 0x1000000, 16 * kMiB)  // grew without freeing the old one
      .RegionEnd(kT1, 2)
      .Free(kT0, 0x1000000, 16 * kMiB)
      .Add(kT0, EventKind::kCtxDestroy);
  LeakMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("0x200000+8MiB"));
}

TEST(LeakTest, UserAllocationsAreNotTheRuntimes) {
  Trace t;
  t.Alloc(kT1, 0x200000, 1 * kMiB)  // device_alloc outside any region
      .Add(kT0, EventKind::kCtxDestroy);
  LeakMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(LeakTest, StacksPlacedInABlockMakeItTheRuntimes) {
  // A constructor kernel's block, allocated outside run() (V3's image load).
  Trace t;
  t.Alloc(kT0, 0x200000, 128 * kKiB)
      .Enqueue(kT0, 1, 0, 0, 0x200000, 1, 128 * kKiB)
      .Start(1)
      .End(1)
      .Add(kT0, EventKind::kCtxDestroy);
  LeakMonitor m;
  EXPECT_TRUE(Feed(m, t, FakeSimView{}).has_value());
}

TEST(LeakTest, StickyErrorExcusesUnfreedBlocks) {
  Trace t = RegionWithCachedBlock();
  t.Add(kGpu, EventKind::kStickyError, payload::StickyError{CuResult::kLaunchFailed})
      .Add(kT0, EventKind::kCtxDestroy);
  LeakMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
  Trace quiet = RegionWithCachedBlock();
  quiet.Add(kT0, EventKind::kCtxDestroy);
  FakeSimView poisoned;
  poisoned.sticky = true;
  EXPECT_EQ(Feed(m, quiet, poisoned), std::nullopt);
}

}  // namespace
}  // namespace stackcheck::sim
