#include "real/os_host.h"

#include <atomic>
#include <cstdio>

#include "absl/time/clock.h"
#include "core/shared.h"
#include "gtest/gtest.h"

namespace stackcheck::real {
namespace {

// Polls `done` for up to 10 s (the hazards under test block threads).
template <typename F>
bool Eventually(F done) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return done();
}

TEST(OsHostTest, ThreadsHaveDistinctIdsAndNames) {
  OsHost host;
  const ThreadId main = host.CurrentThread();
  std::atomic<ThreadId> seen{kNoThread};
  const ThreadId child = host.Spawn("worker", [&] { seen = host.CurrentThread(); });
  host.Join(child);
  EXPECT_NE(main, kNoThread);
  EXPECT_NE(child, main);
  EXPECT_EQ(seen.load(), child);
  EXPECT_EQ(host.ThreadName(child), "worker");
  EXPECT_EQ(host.ThreadName(main), "main");
}

TEST(OsHostTest, SharedStateIsAPlainValueOnOsThreads) {
  OsHost host;
  std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
  EXPECT_EQ(host.DeclareShared("block", mu.get()), kUntrackedShared);
  Shared<int> value(host, "block", mu.get(), 3);
  EXPECT_EQ(value.Read(), 3);
  value.Write() = 5;  // without the guard: nothing checks it here
  EXPECT_EQ(value.Read(), 5);
  MutexLock lock(mu.get());
  value.Write() += 1;
  EXPECT_EQ(value.Read(), 6);
}

TEST(OsHostTest, MutexExcludesAndKnowsItsOwner) {
  OsHost host;
  std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
  int counter = 0;
  std::vector<ThreadId> threads;
  for (int t = 0; t < 4; ++t) {
    threads.push_back(host.Spawn("adder", [&] {
      for (int i = 0; i < 10000; ++i) {
        MutexLock lock(mu.get());
        ++counter;
      }
    }));
  }
  for (ThreadId t : threads) host.Join(t);
  EXPECT_EQ(counter, 40000);
  EXPECT_EQ(mu->Owner(), kNoThread);
  mu->Lock();
  EXPECT_EQ(mu->Owner(), host.CurrentThread());
  EXPECT_FALSE(mu->TryLock());
  mu->Unlock();
  EXPECT_TRUE(host.anomalies().All().empty());
}

// V1a's pattern: locked by one thread, unlocked by another. It must release
// the mutex (so the program goes on as it would with pthreads) and be recorded.
TEST(OsHostTest, UnlockByNonOwnerReleasesAndIsRecorded) {
  OsHost host;
  std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
  mu->Lock();
  const ThreadId owner = host.CurrentThread();
  ThreadId unlocker = host.Spawn("callback", [&] { mu->Unlock(); });
  host.Join(unlocker);
  EXPECT_EQ(mu->Owner(), kNoThread);
  EXPECT_TRUE(mu->TryLock());
  mu->Unlock();
  std::vector<MutexAnomaly> all = host.anomalies().All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kind, MutexAnomaly::Kind::kUnlockByNonOwner);
  EXPECT_EQ(all[0].mutex, "stacks");
  EXPECT_EQ(all[0].thread, unlocker);
  EXPECT_EQ(all[0].owner, owner);
}

// B1's pattern: the owner locks again. It is recorded before the thread
// blocks; here another thread's unlock frees it so the test can finish.
TEST(OsHostTest, RelockByOwnerIsRecordedThenBlocks) {
  OsHost host;
  std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
  std::atomic<bool> second_lock_returned{false};
  std::atomic<int> hook_calls{0};
  host.anomalies().SetHook([&](const MutexAnomaly&) { ++hook_calls; });
  const ThreadId t = host.Spawn("relocker", [&] {
    mu->Lock();
    mu->Lock();
    second_lock_returned = true;
    mu->Unlock();
  });
  ASSERT_TRUE(Eventually([&] { return !host.anomalies().All().empty(); }));
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(second_lock_returned.load());
  mu->Unlock();  // non-owner unlock releases the first hold
  host.Join(t);
  EXPECT_TRUE(second_lock_returned.load());
  std::vector<MutexAnomaly> all = host.anomalies().All();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].kind, MutexAnomaly::Kind::kRelockByOwner);
  EXPECT_EQ(all[0].thread, t);
  EXPECT_EQ(all[1].kind, MutexAnomaly::Kind::kUnlockByNonOwner);
  EXPECT_EQ(hook_calls.load(), 2);
}

TEST(OsHostTest, DestroyingALockedMutexIsRecorded) {
  OsHost host;
  {
    std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
    mu->Lock();
  }
  std::vector<MutexAnomaly> all = host.anomalies().All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kind, MutexAnomaly::Kind::kDestroyedLocked);
}

TEST(OsHostTest, UnlockingAnUnlockedMutexIsRecorded) {
  OsHost host;
  std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
  mu->Unlock();
  std::vector<MutexAnomaly> all = host.anomalies().All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].kind, MutexAnomaly::Kind::kUnlockWhenUnlocked);
}

TEST(OsHostDeathTest, ExitRunsHandlersNewestFirstThenEnds) {
  EXPECT_EXIT(
      {
        OsHost host;
        host.AtExit([] { std::fputs("first-registered\n", stderr); });
        host.AtExit([] { std::fputs("second-registered\n", stderr); });
        host.Exit(7);
      },
      testing::ExitedWithCode(7), "second-registered\nfirst-registered");
}

// libgomp's fatal path can call exit from inside an exit handler; handlers
// already started must not run twice.
TEST(OsHostDeathTest, ExitFromAHandlerDoesNotRerunHandlers) {
  EXPECT_EXIT(
      {
        OsHost host;
        host.AtExit([] { std::fputs("outer\n", stderr); });
        host.AtExit([&host] {
          std::fputs("inner\n", stderr);
          host.Exit(3);
        });
        host.Exit(1);
      },
      testing::ExitedWithCode(3), "^inner\nouter\n$");
}

}  // namespace
}  // namespace stackcheck::real
