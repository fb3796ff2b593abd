#include "real/shaken_host.h"

#include <memory>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "real/os_host.h"

namespace stackcheck::real {
namespace {

// What the watchdog prints for a thread stuck on a mutex names the mutex and
// its owner: the wait-for edge of the deadlock.
TEST(ShakenHostTest, BlockedLockShowsInActivityWithItsOwner) {
  OsHost os;
  Jitter jitter({/*probability=*/0.5, absl::Microseconds(200), /*seed=*/7});
  auto table = std::make_unique<ActivityTable>();
  ActivityLog log(table.get());
  ShakenHost host(os, jitter, log);
  std::unique_ptr<Mutex> mu = host.NewMutex("stacks");
  mu->Lock();
  const ThreadId owner = host.CurrentThread();
  const ThreadId waiter = host.Spawn("region-thread", [&] {
    mu->Lock();
    mu->Unlock();
  });
  std::vector<std::string> lines;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  bool seen = false;
  while (!seen && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(2));
    lines = DescribeActivity(*table, MonotonicNowNs());
    for (const std::string& line : lines) {
      seen |= absl::StrContains(line, "region-thread") &&
              absl::StrContains(line, absl::StrCat("in lock(stacks) held by thread ", owner));
    }
  }
  EXPECT_TRUE(seen) << testing::PrintToString(lines);
  mu->Unlock();
  host.Join(waiter);
  lines = DescribeActivity(*table, MonotonicNowNs());
  bool idle = false;
  for (const std::string& line : lines) {
    idle |= absl::StrContains(line, "region-thread") && absl::StrContains(line, "idle");
  }
  EXPECT_TRUE(idle) << testing::PrintToString(lines);
}

TEST(JitterTest, DelaysOnlyWithProbability) {
  Jitter never({0.0, absl::Milliseconds(1), 1});
  Jitter always({1.0, absl::Microseconds(10), 1});
  for (int i = 0; i < 20; ++i) {
    never.Point();
    always.Point();
  }
  EXPECT_EQ(never.delays(), 0u);
  EXPECT_EQ(always.delays(), 20u);
}

}  // namespace
}  // namespace stackcheck::real
