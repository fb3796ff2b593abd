#include "sim/monitors/bounded_cache.h"

#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using namespace ::stackcheck::sim::monitor_testing;

Trace Held(std::uint64_t held, std::uint64_t needed) {
  Trace t;
  t.Add(kT2, EventKind::kCacheHeld, 0, 0, 0, 0, held, needed);
  return t;
}

TEST(BoundedCacheTest, WithinTheSoftLimitOrTheRunningNeed) {
  BoundedCacheMonitor m(128 * kMiB);
  EXPECT_EQ(Feed(m, Held(128 * kMiB, 0), FakeSimView{}), std::nullopt);
  EXPECT_EQ(Feed(m, Held(528 * kMiB, 528 * kMiB), FakeSimView{}), std::nullopt);
}

TEST(BoundedCacheTest, AboveBoth) {
  BoundedCacheMonitor m(128 * kMiB);
  auto v = Feed(m, Held(528 * kMiB, 8 * kMiB), FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "bounded-cache");
  EXPECT_EQ(v->message,
            "when device_alloc on T2 has applied the soft limit, the stacks "
            "cache holds 528 MiB, above "
            "both the soft limit 128 MiB and the largest block a running "
            "region needs (8 MiB)");
}

TEST(BoundedCacheTest, TheLimitIsAParameter) {
  BoundedCacheMonitor strict(1 * kMiB);
  EXPECT_TRUE(Feed(strict, Held(8 * kMiB, 0), FakeSimView{}).has_value());
}

}  // namespace
}  // namespace stackcheck::sim
