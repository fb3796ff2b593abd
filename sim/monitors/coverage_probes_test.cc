#include "sim/monitors/coverage_probes.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/driver_api.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace ::stackcheck::sim::monitor_testing;

// The engine interns probe names; here id 0 is "oom-retry", 1 "soft-limit-free".
absl::string_view Names(std::uint32_t id) {
  switch (id) {
    case 0:
      return kProbeOomRetry;
    case 1:
      return kProbeSoftLimitFree;
    case 2:
      return "my-new-probe";
    default:
      return "";
  }
}

void Observe(CoverageProbes& c, const Trace& t) { c.Observe(t.events(), Names); }

// V1's hazard: the callback registered behind region 1's kernel runs after
// the cache freed that block and allocated a bigger one.
Trace CallbackAfterRealloc() {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .End(1)
      .Free(kT2, 0x200000, 8 * kMiB)
      .Alloc(kT2, 0x1000000, 16 * kMiB)
      .Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 1})
      .Add(kCb, EventKind::kCallbackEnd, payload::StreamWork{0, 1});
  return t;
}

TEST(CoverageProbesTest, CallbackAfterRealloc) {
  CoverageProbes c;
  Observe(c, CallbackAfterRealloc());
  EXPECT_EQ(c.hits(kProbeCallbackAfterRealloc), 1u);
}

TEST(CoverageProbesTest, CallbackWhileItsBlockLivesIsNotAHit) {
  Trace t;
  t.Alloc(kT1, 0x200000, 8 * kMiB)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 64, 128 * kKiB)
      .Start(1)
      .End(1)
      .Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 1})
      .Free(kT1, 0x200000, 8 * kMiB)  // freed, but nothing allocated since
      .Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 2});
  CoverageProbes c;
  Observe(c, t);
  EXPECT_EQ(c.hits(kProbeCallbackAfterRealloc), 0u);
}

TEST(CoverageProbesTest, AbortWhileOtherRegionInFlight) {
  Trace alone;
  alone.RegionBegin(kT1, 1)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 1, 128 * kKiB)
      .Start(1)
      .End(1, 0, CuResult::kLaunchFailed);
  Trace beside;
  beside.RegionBegin(kT2, 2)
      .RegionBegin(kT1, 1)
      .Enqueue(kT1, 1, 0, 1, 0x200000, 1, 128 * kKiB)
      .Start(1)
      .End(1, 0, CuResult::kLaunchFailed);
  CoverageProbes c;
  Observe(c, alone);
  EXPECT_EQ(c.hits(kProbeAbortWhileOtherRegionInFlight), 0u);
  Observe(c, beside);
  EXPECT_EQ(c.hits(kProbeAbortWhileOtherRegionInFlight), 1u);
}

TEST(CoverageProbesTest, FreeWaitingOnARunningCallback) {
  const payload::Call free_call{DriverCall::kMemFree};
  Trace t;
  t.Add(kT1, EventKind::kDriverCallBlock, free_call)  // no callback yet
      .Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 1})
      .Add(kT1, EventKind::kDriverCallBlock, payload::Call{DriverCall::kCtxSynchronize});
  CoverageProbes c;
  Observe(c, t);
  EXPECT_EQ(c.hits(kProbeFreeWaitsOnRunningCallback), 0u);
  t.Add(kT1, EventKind::kDriverCallBlock, free_call);
  Observe(c, t);
  EXPECT_EQ(c.hits(kProbeFreeWaitsOnRunningCallback), 1u);
}

TEST(CoverageProbesTest, RuntimeProbesCountOncePerExecution) {
  Trace t;
  t.Add(kT1, EventKind::kProbe, payload::Probe{0})
      .Add(kT1, EventKind::kProbe, payload::Probe{0})
      .Add(kT1, EventKind::kProbe, payload::Probe{2});
  CoverageProbes c;
  Observe(c, t);
  Observe(c, t);
  EXPECT_EQ(c.executions(), 2u);
  EXPECT_EQ(c.hits(kProbeOomRetry), 2u);
  EXPECT_EQ(c.hits(kProbeSoftLimitFree), 0u);
  EXPECT_EQ(c.hits("my-new-probe"), 2u);
}

TEST(CoverageProbesTest, MergeAddsAndReportNamesProbesNeverHit) {
  CoverageProbes a, b;
  Observe(a, CallbackAfterRealloc());
  Trace oom;
  oom.Add(kT1, EventKind::kProbe, payload::Probe{0});
  Observe(b, oom);
  Observe(b, Trace());
  a.Merge(b);
  EXPECT_EQ(a.executions(), 3u);
  EXPECT_EQ(a.hits(kProbeOomRetry), 1u);
  EXPECT_EQ(a.hits(kProbeCallbackAfterRealloc), 1u);
  const std::string report = a.Report();
  EXPECT_THAT(report, HasSubstr("coverage probes over 3 executions"));
  EXPECT_THAT(report, HasSubstr("probe soft-limit-free never hit\n"));
  EXPECT_THAT(report, HasSubstr("probe free-waits-on-running-callback never hit\n"));
  EXPECT_THAT(report, HasSubstr("probe abort-while-other-region-in-flight never hit\n"));
  EXPECT_THAT(report, Not(HasSubstr("probe oom-retry never hit")));
  EXPECT_THAT(report, Not(HasSubstr("probe callback-after-realloc never hit")));
}

}  // namespace
}  // namespace stackcheck::sim
