// Tests sim/event_format.h (implemented in sim/event.cc).
#include "sim/event_format.h"

#include "core/cu_result.h"
#include "gtest/gtest.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {
namespace {

TEST(FormatBytesTest, ExactUnitsAndDecimals) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(128 * 1024), "128 KiB");
  EXPECT_EQ(FormatBytes(8ull << 20), "8 MiB");
  EXPECT_EQ(FormatBytes(3ull << 19), "1.5 MiB");
  EXPECT_EQ(FormatBytes(1ull << 30), "1 GiB");
}

TEST(FormatBlockTest, HexBaseAndSize) {
  EXPECT_EQ(FormatBlock(0x200000, 8ull << 20), "0x200000+8MiB");
}

TEST(FormatTimeTest, PicksAUnit) {
  EXPECT_EQ(FormatTime(42), "42ns");
  EXPECT_EQ(FormatTime(3000), "3us");
  EXPECT_EQ(FormatTime(1250), "1.250us");
  EXPECT_EQ(FormatTime(3000000), "3ms");
}

TEST(FormatEventTest, EveryKindHasANameAndALine) {
  for (int k = 0; k <= static_cast<int>(EventKind::kProbe); ++k) {
    Event e;
    e.kind = static_cast<EventKind>(k);
    EXPECT_NE(EventKindName(e.kind), "unknown-event") << k;
    EXPECT_EQ(FormatEvent(e).rfind(std::string(EventKindName(e.kind)), 0), 0u) << k;
  }
}

TEST(FormatEventTest, KernelEnqueueNamesRegionAndStacks) {
  // Kernel 3 on stream 0, region 2, 64 warp slots of 128 KiB.
  const Event e(0, kNoActor, EventKind::kKernelEnqueue,
                payload::KernelLaunch{payload::Kernel{3, 0, 2, 64}, 0x200000, 128 * 1024});
  EXPECT_EQ(FormatEvent(e), "kernel-enqueue k3 s0 region 2 stacks 0x200000+8MiB (64 x 128 KiB)");
}

TEST(FormatEventTest, ResultsAndProbesByName) {
  const Event end(0, kNoActor, EventKind::kKernelEnd,
                  payload::KernelEnd{payload::Kernel{1}, CuResult::kLaunchFailed});
  EXPECT_EQ(FormatEvent(end), "kernel-end k1 s0 719 LAUNCH_FAILED");
  const Event probe(0, kNoActor, EventKind::kProbe, payload::Probe{0});
  EXPECT_EQ(FormatEvent(probe), "probe #0");
}

TEST(DescribeEventTest, IndexTimeActor) {
  const Event e(1200, kNoActor, EventKind::kFree, payload::Block{0x200000, 8ull << 20});
  EXPECT_EQ(DescribeEvent(41, e, "T1"), "#41 @1.200us T1 free 0x200000+8MiB");
}

}  // namespace
}  // namespace stackcheck::sim
