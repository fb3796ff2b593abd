#include "sim/monitors/bounded_cache.h"

#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using namespace ::stackcheck::sim::monitor_testing;

constexpr std::uint32_t kStacksLock = 7;

Trace& Held(Trace& t, std::uint64_t held) {
  return t.Add(kT2, EventKind::kCacheHeld, payload::CacheHeld{held});
}
// T1 hands what it did so far to T2 through the stacks lock.
Trace& Handover(Trace& t) {
  return t.Add(kT1, EventKind::kMutexLock, payload::Mutex{kStacksLock})
      .Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{kStacksLock, kT1})
      .Add(kT2, EventKind::kMutexLock, payload::Mutex{kStacksLock});
}

TEST(BoundedCacheTest, WithinTheSoftLimitOrTheReportersOwnRegion) {
  BoundedCacheMonitor m(128 * kMiB);
  Trace within;
  EXPECT_EQ(Feed(m, Held(within, 128 * kMiB), FakeSimView{}), std::nullopt);
  Trace own;
  own.RegionBegin(kT2, 1, 528 * kMiB);
  EXPECT_EQ(Feed(m, Held(own, 528 * kMiB), FakeSimView{}), std::nullopt);
}

TEST(BoundedCacheTest, AboveBoth) {
  BoundedCacheMonitor m(128 * kMiB);
  Trace t;
  t.RegionBegin(kT2, 1, 8 * kMiB);
  auto v = Feed(m, Held(t, 528 * kMiB), FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "bounded-cache");
  EXPECT_EQ(v->message,
            "when device_alloc on T2 has applied the soft limit, the stacks "
            "cache holds 528 MiB, above "
            "both the soft limit 128 MiB and the largest block a running "
            "region needs (8 MiB)");
}

TEST(BoundedCacheTest, ARegionOfAnotherThreadRunsWhenItsBeginIsOrderedBeforeTheReport) {
  BoundedCacheMonitor m(128 * kMiB);
  Trace ordered;
  ordered.RegionBegin(kT1, 1, 528 * kMiB);
  Handover(ordered);
  EXPECT_EQ(Feed(m, Held(ordered, 528 * kMiB), FakeSimView{}), std::nullopt);
  // Logged first, but nothing orders it first: it could as well begin after.
  Trace unordered;
  unordered.RegionBegin(kT1, 1, 528 * kMiB);
  EXPECT_TRUE(Feed(m, Held(unordered, 528 * kMiB), FakeSimView{}).has_value());
}

TEST(BoundedCacheTest, ARegionHasEndedOnlyWhenItsEndIsOrderedBeforeTheReport) {
  BoundedCacheMonitor m(128 * kMiB);
  Trace unordered_end;
  unordered_end.RegionBegin(kT1, 1, 528 * kMiB);
  Handover(unordered_end).RegionEnd(kT1, 1);
  EXPECT_EQ(Feed(m, Held(unordered_end, 528 * kMiB), FakeSimView{}), std::nullopt);
  Trace ordered_end;
  ordered_end.RegionBegin(kT1, 1, 528 * kMiB).RegionEnd(kT1, 1);
  Handover(ordered_end);
  EXPECT_TRUE(Feed(m, Held(ordered_end, 528 * kMiB), FakeSimView{}).has_value());
}

// event-fence-keep's contract: a region that has ended still bounds the
// block, but nothing that did not happen before the report does, and a block
// larger than any region asked for is still too large.
TEST(BoundedCacheTest, LargestRegionBoundCountsEndedRegionsOnly) {
  BoundedCacheMonitor m(128 * kMiB, CacheBound::kLargestRegion);
  Trace ended;
  ended.RegionBegin(kT1, 1, 528 * kMiB).RegionEnd(kT1, 1);
  Handover(ended);
  EXPECT_EQ(Feed(m, Held(ended, 528 * kMiB), FakeSimView{}), std::nullopt);
  m.Reset();
  Trace unordered;
  unordered.RegionBegin(kT1, 1, 528 * kMiB);
  EXPECT_TRUE(Feed(m, Held(unordered, 528 * kMiB), FakeSimView{}).has_value());
  m.Reset();
  Trace larger;
  larger.RegionBegin(kT2, 1, 264 * kMiB).RegionEnd(kT2, 1);
  auto v = Feed(m, Held(larger, 528 * kMiB), FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message,
            "when device_alloc on T2 starts, the stacks cache holds 528 MiB, above both the soft "
            "limit 128 MiB and the largest block any region so far has needed (264 MiB)");
}

TEST(BoundedCacheTest, TheLimitIsAParameter) {
  BoundedCacheMonitor strict(1 * kMiB);
  Trace t;
  EXPECT_TRUE(Feed(strict, Held(t, 8 * kMiB), FakeSimView{}).has_value());
}

}  // namespace
}  // namespace stackcheck::sim
