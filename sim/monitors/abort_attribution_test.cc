#include "sim/monitors/abort_attribution.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

constexpr CuResult kLaunchFailed = CuResult::kLaunchFailed;
constexpr CuResult kOutOfMemory = CuResult::kOutOfMemory;

// T1 runs region 1 whose kernel aborts; T2 runs region 2 alongside.
Trace AbortInRegion1() {
  Trace t;
  t.Enqueue(kT1, 1, 0, 1, 0x200000, 1, 128 * kKiB)
      .Enqueue(kT2, 2, 0, 2, 0x200000, 1, 128 * kKiB)
      .Start(1)
      .End(1, 0, kLaunchFailed)
      .Add(kGpu, EventKind::kStickyError, payload::StickyError{kLaunchFailed})
      .Add(kGpu, EventKind::kKernelDropped, payload::Kernel{2});
  return t;
}

constexpr std::uint32_t kHinted = FakeSimView::kHintedMessage;
constexpr std::uint32_t kBare = FakeSimView::kBareMessage;

TEST(AbortAttributionTest, FirstMessageWithTheHintHolds) {
  Trace t = AbortInRegion1();
  t.Add(kT1, EventKind::kFatalReported, payload::Reported{1, kLaunchFailed, kHinted})
      .Add(kT2, EventKind::kErrorReported, payload::Reported{0, kLaunchFailed, kBare})
      .Add(kT1, EventKind::kProcessExit, payload::ExitStatus{1});
  AbortAttributionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, /*quiesce=*/true), std::nullopt);
}

// What V2 prints when a target update on another thread meets the abort
// first (measured on the H200 with GCC 12.2): the user never reads the hint.
TEST(AbortAttributionTest, FirstMessageWithoutTheHint) {
  Trace t = AbortInRegion1();
  t.Add(kT2, EventKind::kErrorReported, payload::Reported{0, kLaunchFailed, kBare})
      .Add(kT1, EventKind::kFatalReported, payload::Reported{1, kLaunchFailed, kHinted});
  AbortAttributionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "abort-attribution");
  EXPECT_EQ(v->event_index, 6u);
  EXPECT_THAT(v->message, HasSubstr("kernel 1 (region 1) aborted at event 3, but the "
                                    "first message the user sees, from T2, is "
                                    "\"cuMemcpyHtoD_v2 error: unspecified launch failure\""));
}

// A fatal error with the hint that blames another region (T2's wait met
// region 1's abort and named its own region 2) misattributes the abort.
TEST(AbortAttributionTest, FatalErrorBlamingAnotherRegion) {
  Trace t = AbortInRegion1();
  t.Add(kT2, EventKind::kFatalReported, payload::Reported{2, kLaunchFailed, kHinted});
  AbortAttributionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->event_index, 6u);
  EXPECT_THAT(v->message, HasSubstr("kernel 1 (region 1) aborted at event 3, but the fatal "
                                    "error from T2 blames region 2"));
}

// A fatal error that names no region is judged by its text alone.
TEST(AbortAttributionTest, FatalErrorNamingNoRegionWithTheHintHolds) {
  Trace t = AbortInRegion1();
  t.Add(kT2, EventKind::kFatalReported, payload::Reported{0, kLaunchFailed, kHinted})
      .Add(kT2, EventKind::kProcessExit, payload::ExitStatus{1});
  AbortAttributionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, /*quiesce=*/true), std::nullopt);
}

TEST(AbortAttributionTest, KernelsEndingInThePoisonedContextDidNotAbort) {
  Trace t;
  t.Enqueue(kT1, 1, 1, 1, 0x200000, 1, 128 * kKiB)
      .Enqueue(kT2, 2, 2, 2, 0x400000, 1, 128 * kKiB)
      .Start(1, 1)
      .Start(2, 2)
      .End(1, 1, kLaunchFailed)
      .Add(kGpu, EventKind::kStickyError, payload::StickyError{kLaunchFailed})
      .End(2, 2, kLaunchFailed)  // ran on in the poisoned context
      .Add(kT2, EventKind::kFatalReported, payload::Reported{2, kLaunchFailed, kBare});
  AbortAttributionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("kernel 1 (region 1) aborted"));
}

TEST(AbortAttributionTest, AbortNeverReported) {
  Trace t = AbortInRegion1();
  AbortAttributionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
  // A stuck execution is the engine's to report.
  EXPECT_EQ(Feed(m, t, FakeSimView{}, /*quiesce=*/false), std::nullopt);
  auto v = Feed(m, t, FakeSimView{}, /*quiesce=*/true);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("kernel 1 (region 1) aborted at event 3 "
                                    "with 719 LAUNCH_FAILED"));
  EXPECT_THAT(v->message, HasSubstr("lost"));
}

TEST(AbortAttributionTest, ProcessExitWithoutReport) {
  Trace t = AbortInRegion1();
  t.Add(kT2, EventKind::kFatalReported, payload::Reported{2, kOutOfMemory, kBare})  // unrelated
      .Add(kT2, EventKind::kProcessExit, payload::ExitStatus{1});
  AbortAttributionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->event_index, 7u);
}

// The first exit's handlers are done: the process may end at any step from
// here, so an abort no message reported yet is lost in some run; a message
// another thread prints later (before the process ends at rest) does not
// save it, and the end itself is not judged again.
TEST(AbortAttributionTest, JudgedWhenTheExitHandlersAreDone) {
  Trace t = AbortInRegion1();
  t.Add(kT2, EventKind::kExitHandlersDone, payload::ExitStatus{1});
  AbortAttributionMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->event_index, 6u);
  EXPECT_THAT(v->message, HasSubstr("lost"));

  Trace reported = AbortInRegion1();
  reported.Add(kT1, EventKind::kFatalReported, payload::Reported{1, kLaunchFailed, kHinted})
      .Add(kT1, EventKind::kExitHandlersDone, payload::ExitStatus{1})
      .Add(kT1, EventKind::kProcessExit, payload::ExitStatus{1});
  AbortAttributionMonitor again;
  EXPECT_EQ(Feed(again, reported, FakeSimView{}, /*quiesce=*/true), std::nullopt);
}

TEST(AbortAttributionTest, AnAbortAfterTheHandlersAreDoneIsNotJudgedAtTheEnd) {
  // The process could have ended before the abort: that run holds, and the
  // run where it ends after the abort is the search's, with the handlers'
  // end ordered after the trap.
  Trace t;
  t.Enqueue(kT1, 1, 0, 1, 0x200000, 1, 128 * kKiB)
      .Add(kT2, EventKind::kExitHandlersDone, payload::ExitStatus{1})
      .Start(1)
      .End(1, 0, kLaunchFailed)
      .Add(kT2, EventKind::kProcessExit, payload::ExitStatus{1});
  AbortAttributionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, /*quiesce=*/true), std::nullopt);
}

TEST(AbortAttributionTest, FatalsWithoutAnyAbortAreNotItsBusiness) {
  Trace t;
  t.Add(kT1, EventKind::kFatalReported, payload::Reported{3, kOutOfMemory})
      .Add(kT1, EventKind::kProcessExit, payload::ExitStatus{1});
  AbortAttributionMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, /*quiesce=*/true), std::nullopt);
}

}  // namespace
}  // namespace stackcheck::sim
