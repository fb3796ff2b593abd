#include "sim/monitors/mutex_discipline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

TEST(MutexDisciplineTest, OrdinaryLockingHolds) {
  Trace t;
  t.Add(kT0, EventKind::kMutexCreate, payload::Mutex{0})
      .Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT2, EventKind::kMutexBlock, payload::MutexHeld{0, kT1})
      .Add(kT2, EventKind::kMutexTryLockFail, payload::Mutex{0})
      .Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{0, kT1})
      .Add(kT2, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT2, EventKind::kMutexUnlock, payload::MutexHeld{0, kT2})
      .Add(kT0, EventKind::kMutexDestroy, payload::MutexHeld{0, kNoActor});
  MutexDisciplineMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(MutexDisciplineTest, CallbackUnlocksRunsLock) {  // V1a
  Trace t;
  t.Add(kT0, EventKind::kMutexCreate, payload::Mutex{0})
      .Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kCb, EventKind::kMutexUnlock, payload::MutexHeld{0, kT1});
  MutexDisciplineMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "mutex-discipline");
  EXPECT_EQ(v->event_index, 2u);
  EXPECT_EQ(v->message,
            "CB unlocked mutex 0, held by T1 since event 1 (unlock by a thread "
            "that does not own it)");
}

TEST(MutexDisciplineTest, UnlockOfAFreeMutex) {
  Trace t;
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{4, kNoActor});
  MutexDisciplineMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("which nobody held"));
}

TEST(MutexDisciplineTest, RelockByTheOwner) {  // B1's exit path
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT1, EventKind::kMutexBlock, payload::MutexHeld{0, kT1});
  MutexDisciplineMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("T1 locks mutex 0 again while holding it "
                                    "since event 0"));
}

TEST(MutexDisciplineTest, DestroyWhileLocked) {
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT0, EventKind::kMutexDestroy, payload::MutexHeld{0, kT1});
  MutexDisciplineMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->message, "T0 destroyed mutex 0 while T1 holds it (locked at event 0)");
}

TEST(MutexDisciplineTest, AFailedDestroyLeavesTheMutexToItsOwner) {
  // glibc: EBUSY, the mutex stays locked and alive; the owner's unlock after
  // it is no use after destroy (V2's close under a thread inside run).
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT0, EventKind::kMutexDestroy, payload::MutexHeld{0, kT1})
      .Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{0, kT1});
  MutexDisciplineMonitor m;
  absl::Span<const Event> all(t.events());
  EXPECT_TRUE(m.OnEvent(all.first(1), FakeSimView{}) == std::nullopt);
  EXPECT_TRUE(m.OnEvent(all.first(2), FakeSimView{}).has_value());  // destroy while held
  EXPECT_EQ(m.OnEvent(all.first(3), FakeSimView{}), std::nullopt);
}

TEST(MutexDisciplineTest, AUseAfterDestroyIsReportedOnce) {
  // The lock and the unlock after it are one bug: an execution that goes on
  // past it must not report the unlock as another.
  Trace t;
  t.Add(kT0, EventKind::kMutexDestroy, payload::MutexHeld{0, kNoActor})
      .Add(kT1, EventKind::kMutexLock, payload::Mutex{0})
      .Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{0, kT1});
  MutexDisciplineMonitor m;
  absl::Span<const Event> all(t.events());
  EXPECT_EQ(m.OnEvent(all.first(1), FakeSimView{}), std::nullopt);
  EXPECT_TRUE(m.OnEvent(all.first(2), FakeSimView{}).has_value());
  EXPECT_EQ(m.OnEvent(all.first(3), FakeSimView{}), std::nullopt);
}

TEST(MutexDisciplineTest, NamesTheMutexWhenTheEngineKnowsIt) {
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7})
      .Add(kCb, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1});
  MutexDisciplineMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("CB unlocked mutex 'stacks lock', held by T1"));
}

TEST(MutexDisciplineTest, UseAfterDestroy) {
  Trace t;
  t.Add(kT0, EventKind::kMutexDestroy, payload::MutexHeld{0, kNoActor})
      .Add(kT1, EventKind::kMutexLock, payload::Mutex{0});
  MutexDisciplineMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("after T0 destroyed it at event 0"));
}

}  // namespace
}  // namespace stackcheck::sim
