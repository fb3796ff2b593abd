#include "sim/monitors/data_race.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/driver_api.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

constexpr std::uint32_t kBlock = 0, kOther = 1;

SharedGuard Guard(bool guarded) { return guarded ? SharedGuard::kHeld : SharedGuard::kUnguarded; }
Trace& Read(Trace& t, ActorId actor, std::uint32_t object, bool guarded = false) {
  return t.Add(actor, EventKind::kSharedAccess,
               payload::SharedAccess{object, /*write=*/false, Guard(guarded)});
}
Trace& Write(Trace& t, ActorId actor, std::uint32_t object, bool guarded = false) {
  return t.Add(actor, EventKind::kSharedAccess,
               payload::SharedAccess{object, /*write=*/true, Guard(guarded)});
}
Trace& Call(Trace& t, ActorId actor, DriverCall api, CuResult result = CuResult::kSuccess) {
  return t.Add(actor, EventKind::kDriverCall, payload::Call{api, 0, result});
}

// Judged at the end only, as the engine does: most executions are ordered by
// their guards alone and build no clocks; the verdict must be the one the
// clocks give when fed every event.
std::optional<Violation> AtTheEnd(DataRaceMonitor& m, const Trace& t) {
  m.Reset();
  auto v = m.OnQuiescence(t.events(), FakeSimView{}, true);
  auto fed = Feed(m, t, FakeSimView{}, true);
  EXPECT_EQ(v.has_value(), fed.has_value());
  if (v.has_value() && fed.has_value()) {
    EXPECT_EQ(v->message, fed->message);
  }
  return v;
}

TEST(DataRaceTest, AccessesUnderOneMutexAreOrdered) {
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1})
      .Add(kT2, EventKind::kMutexLock, payload::Mutex{7});
  Read(t, kT2, kBlock, true);
  Write(t, kT2, kBlock, true);
  t.Add(kT2, EventKind::kMutexUnlock, payload::MutexHeld{7, kT2});
  DataRaceMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, true), std::nullopt);
  EXPECT_EQ(AtTheEnd(m, t), std::nullopt);  // the guards alone: no clocks built
}

TEST(DataRaceTest, APassOrdersItsReadsBetweenTheUnlockBeforeAndTheLockAfter) {
  // T1 writes under the lock; T2 reads in a pass (Mutex::ReadUnder); T1
  // locks again and writes: both pairs are ordered through the mutex.
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1})
      .Add(kT2, EventKind::kMutexPass, payload::Mutex{7});
  Read(t, kT2, kBlock, true);
  t.Add(kT2, EventKind::kMutexPassEnd, payload::Mutex{7})
      .Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  DataRaceMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, true), std::nullopt);
  EXPECT_EQ(AtTheEnd(m, t), std::nullopt);
  // What the reader does after its pass is not ordered before the next lock.
  Write(t, kT2, kOther);
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1});
  Read(t, kT1, kOther);
  auto v = Feed(m, t, FakeSimView{}, true);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("T1 reads shared object 1 unguarded"));
}

TEST(DataRaceTest, PassesDoNotOrderEachOther) {
  Trace t;
  t.Add(kT1, EventKind::kMutexPass, payload::Mutex{7});
  Write(t, kT1, kOther);
  t.Add(kT1, EventKind::kMutexPassEnd, payload::Mutex{7})
      .Add(kT2, EventKind::kMutexPass, payload::Mutex{7});
  Read(t, kT2, kOther);
  DataRaceMonitor m;
  EXPECT_TRUE(Feed(m, t, FakeSimView{}, true).has_value());
}

TEST(DataRaceTest, AnUnguardedReadRacesWithALockedWriteAndNamesBoth) {
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1});
  Read(t, kT2, kBlock);  // no lock: nothing orders it after T1's write
  DataRaceMonitor m;
  auto v = Feed(m, t, FakeSimView{}, true);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "data-race");
  EXPECT_EQ(v->event_index, 3u);
  EXPECT_EQ(v->message,
            "T2 reads shared object 0 unguarded (event #3) while T1 writes it with its guard "
            "held (event #1): no lock, spawn, join, callback or synchronisation orders them");
}

TEST(DataRaceTest, JudgesTheTraceAtTheEndWithoutBeingFedEvents) {
  // The engine feeds it nothing as events are logged (reads() is empty);
  // the end of the execution is where it reads the trace, once.
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1});
  Read(t, kT2, kBlock);
  DataRaceMonitor m;
  EXPECT_EQ(m.reads(), 0u);
  m.Reset();
  auto v = m.OnQuiescence(t.events(), FakeSimView{}, true);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("T2 reads shared object 0 unguarded (event #3)"));
  // Fed event by event instead, as tests and direct callers do, it finds the same race.
  auto again = Feed(m, t, FakeSimView{}, true);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->message, v->message);
}

TEST(DataRaceTest, AWriteInAPassIsNotOrderedByTheGuard) {
  Trace t;
  t.Add(kT1, EventKind::kMutexPass, payload::Mutex{7});
  t.Add(kT1, EventKind::kSharedAccess,
        payload::SharedAccess{kBlock, /*write=*/true, SharedGuard::kWriteInPass});
  t.Add(kT1, EventKind::kMutexPassEnd, payload::Mutex{7})
      .Add(kT2, EventKind::kMutexPass, payload::Mutex{7});
  Read(t, kT2, kBlock, true);
  DataRaceMonitor m;
  auto v = AtTheEnd(m, t);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("while T1 writes it in a pass under its guard (event #1)"));
}

TEST(DataRaceTest, AnUnlockByAnotherThreadOrdersNothingOfTheHolders) {
  // T0 unlocks the mutex T1 holds; T2 then locks it: T1's write under the
  // lock is not ordered before T2's read under it.
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  t.Add(kT0, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1})
      .Add(kT2, EventKind::kMutexLock, payload::Mutex{7});
  Read(t, kT2, kBlock, true);
  DataRaceMonitor m;
  EXPECT_TRUE(AtTheEnd(m, t).has_value());
}

TEST(DataRaceTest, ReadsNeverRaceWithReads) {
  Trace t;
  Read(t, kT1, kBlock);
  Read(t, kT2, kBlock);
  Read(t, kCb, kBlock);
  DataRaceMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, true), std::nullopt);
}

TEST(DataRaceTest, AWriteRacesWithAnEarlierUnorderedRead) {
  Trace t;
  Read(t, kT1, kBlock);
  Write(t, kT2, kOther);  // another object: no race
  Write(t, kT2, kBlock);
  DataRaceMonitor m;
  auto v = Feed(m, t, FakeSimView{}, true);
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("while T1 reads it unguarded (event #0)"));
}

TEST(DataRaceTest, SpawnAndJoinOrder) {
  Trace t;
  Write(t, kT0, kBlock);
  t.Add(kT1, EventKind::kThreadStart, payload::ThreadStart{kT0});
  Read(t, kT1, kBlock);
  Write(t, kT1, kBlock);
  t.Add(kT1, EventKind::kThreadEnd).Add(kT0, EventKind::kJoin, payload::Join{kT1});
  Write(t, kT0, kBlock);
  DataRaceMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}, true), std::nullopt);
}

TEST(DataRaceTest, TheParentsLaterWritesRaceWithTheChild) {
  Trace t;
  t.Add(kT1, EventKind::kThreadStart, payload::ThreadStart{kT0});
  Write(t, kT0, kBlock);  // after the spawn
  Read(t, kT1, kBlock);
  DataRaceMonitor m;
  EXPECT_TRUE(Feed(m, t, FakeSimView{}, true).has_value());
}

TEST(DataRaceTest, ACallbackRunsAfterItsEnqueueButNotAfterOthersWrites) {
  Trace t;
  Write(t, kT1, kBlock);
  Call(t, kT1, DriverCall::kStreamAddCallback);  // callback 0
  // Refused: numbers nothing.
  Call(t, kT2, DriverCall::kStreamAddCallback, CuResult::kInvalidValue);
  t.Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 0});
  Read(t, kCb, kBlock);   // ordered after T1's write by the enqueue
  Write(t, kT2, kBlock);  // T2 is ordered with neither
  DataRaceMonitor m;
  auto v = Feed(m, t, FakeSimView{}, true);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->event_index, 5u);
  EXPECT_THAT(v->message, HasSubstr("T2 writes"));
}

TEST(DataRaceTest, KernelCompletionOrdersTheEnqueuerBeforeASynchronisingReturn) {
  for (bool synchronised : {true, false}) {
    Trace t;
    Write(t, kT1, kBlock);
    t.Enqueue(kT1, 0, 0, 1, 0x1000, 1, 128).Start(0).End(0);
    if (synchronised) Call(t, kT2, DriverCall::kCtxSynchronize);
    Read(t, kT2, kBlock);
    DataRaceMonitor m;
    EXPECT_EQ(Feed(m, t, FakeSimView{}, true).has_value(), !synchronised);
  }
}

TEST(DataRaceTest, ResetForgetsThePreviousExecution) {
  Trace first;
  Write(first, kT1, kBlock);
  Trace second;
  Read(second, kT2, kBlock);
  DataRaceMonitor m;
  EXPECT_EQ(Feed(m, first, FakeSimView{}, true), std::nullopt);
  EXPECT_EQ(Feed(m, second, FakeSimView{}, true), std::nullopt);
}

TEST(DataRaceTest, ManyActorsWidenTheClocks) {
  Trace t;
  t.Add(kT1, EventKind::kMutexLock, payload::Mutex{7});
  Write(t, kT1, kBlock, true);
  t.Add(kT1, EventKind::kMutexUnlock, payload::MutexHeld{7, kT1});
  t.Add(40, EventKind::kMutexLock, payload::Mutex{7});
  Read(t, 40, kBlock, true);  // ordered: no race, though actor 40 widens every clock
  Write(t, 41, kBlock);       // unordered with both
  DataRaceMonitor m;
  auto v = Feed(m, t, FakeSimView{}, true);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->event_index, 5u);
}

}  // namespace
}  // namespace stackcheck::sim
