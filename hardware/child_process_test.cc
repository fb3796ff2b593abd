#include "hardware/child_process.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace stackcheck::hardware {
namespace {

TEST(ChildProcessTest, LinesComeBackInOrder) {
  absl::StatusOr<ChildOutput> out = RunInChild(
      [](const EmitLine& emit) {
        emit("one");
        emit("two words");
      },
      absl::Seconds(10));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->lines, (std::vector<std::string>{"one", "two words"}));
  EXPECT_FALSE(out->hung);
  EXPECT_EQ(out->abnormal_end, "");
}

TEST(ChildProcessTest, AQuietChildIsKilledAndWhatItSaidIsKept) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ChildOutput> out = RunInChild(
      [](const EmitLine& emit) {
        emit("before the hang");
        for (;;) pause();
      },
      absl::Milliseconds(200));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->hung);
  EXPECT_EQ(out->lines, (std::vector<std::string>{"before the hang"}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(ChildProcessTest, AChildThatDiesSaysHow) {
  absl::StatusOr<ChildOutput> out = RunInChild(
      [](const EmitLine& emit) {
        emit("partial");
        raise(SIGABRT);
      },
      absl::Seconds(10));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->hung);
  EXPECT_EQ(out->lines, (std::vector<std::string>{"partial"}));
  EXPECT_EQ(out->abnormal_end.rfind("killed by signal 6", 0), 0u) << out->abnormal_end;
}

TEST(ChildProcessTest, TheWatchdogCountsFromTheLastLine) {
  // Three lines 150 ms apart under a 1 s limit: quiet never longer than it.
  absl::StatusOr<ChildOutput> out = RunInChild(
      [](const EmitLine& emit) {
        for (int i = 0; i < 3; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
          emit("tick");
        }
      },
      absl::Seconds(1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->hung);
  EXPECT_EQ(out->lines.size(), 3u);
}

}  // namespace
}  // namespace stackcheck::hardware
