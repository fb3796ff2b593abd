#include "properties/program/schedule_tree.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace stackcheck::properties {
namespace {

// A deterministic stand-in for a program: threads with a number of steps
// each; at every step with two or more runnable threads the schedule
// answers. Returns the order of steps (thread letters) and fills what the
// library would report.
std::string RunToy(const std::vector<int>& steps, const std::vector<std::uint64_t>& prefix,
                   std::vector<std::uint64_t>* answers, std::vector<SchedulePoint>* points) {
  std::vector<int> left = steps;
  int current = -1;
  std::string order;
  answers->clear();
  points->clear();
  while (true) {
    std::vector<int> runnable;
    for (int t = 0; t < static_cast<int>(left.size()); ++t) {
      if (left[t] > 0) runnable.push_back(t);
    }
    if (runnable.empty()) break;
    int pick = runnable[0];
    if (runnable.size() >= 2) {
      const std::size_t n = runnable.size();
      const auto at = std::find(runnable.begin(), runnable.end(), current);
      const bool has_current = at != runnable.end();
      const std::size_t base = has_current ? static_cast<std::size_t>(at - runnable.begin()) : 0;
      const std::uint64_t v = answers->size() < prefix.size() ? prefix[answers->size()] : 0;
      pick = runnable[(base + v) % n];
      answers->push_back(v);
      points->push_back(SchedulePoint{n, has_current});
    } else if (runnable[0] != current && current >= 0 && left[current] > 0) {
      pick = runnable[0];
    }
    --left[pick];
    current = pick;
    order.push_back(static_cast<char>('A' + pick));
  }
  return order;
}

int Preemptions(const std::string& order, std::vector<int> left) {
  int preemptions = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int t = order[i] - 'A';
    if (i > 0) {
      const int prev = order[i - 1] - 'A';
      if (prev != t && left[prev] > 0) ++preemptions;
    }
    --left[t];
  }
  return preemptions;
}

// Every interleaving of the threads' steps with at most `bound` preemptions.
std::set<std::string> AllOrders(const std::vector<int>& steps, int bound) {
  std::string base;
  for (std::size_t t = 0; t < steps.size(); ++t) base += std::string(steps[t], 'A' + t);
  std::sort(base.begin(), base.end());
  std::set<std::string> out;
  do {
    if (bound < 0 || Preemptions(base, steps) <= bound) out.insert(base);
  } while (std::next_permutation(base.begin(), base.end()));
  return out;
}

void ExpectEnumeratesExactly(const std::vector<int>& steps, int bound) {
  ScheduleTree tree(bound);
  std::multiset<std::string> seen;
  while (auto prefix = tree.Next()) {
    std::vector<std::uint64_t> answers;
    std::vector<SchedulePoint> points;
    seen.insert(RunToy(steps, *prefix, &answers, &points));
    ASSERT_TRUE(tree.Record(answers, points).ok());
    ASSERT_LT(seen.size(), 100000u);
  }
  const std::set<std::string> expected = AllOrders(steps, bound);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), expected);
  EXPECT_EQ(seen.size(), expected.size()) << "an interleaving was run twice";
  EXPECT_EQ(tree.executions(), expected.size());
  EXPECT_EQ(tree.bound_cut(), bound >= 0 && expected.size() < AllOrders(steps, -1).size());
}

TEST(ScheduleTreeTest, EnumeratesEveryInterleavingWithoutBound) {
  ExpectEnumeratesExactly({2, 2}, -1);
  ExpectEnumeratesExactly({3, 2, 1}, -1);
}

TEST(ScheduleTreeTest, EnumeratesExactlyTheInterleavingsWithinTheBound) {
  for (int bound = 0; bound <= 3; ++bound) {
    ExpectEnumeratesExactly({3, 3}, bound);
    ExpectEnumeratesExactly({2, 2, 2}, bound);
  }
}

TEST(ScheduleTreeTest, OneThreadIsOneExecution) {
  ScheduleTree tree(2);
  ASSERT_TRUE(tree.Next().has_value());
  ASSERT_TRUE(tree.Record({}, {}).ok());
  EXPECT_FALSE(tree.Next().has_value());
  EXPECT_FALSE(tree.bound_cut());
}

TEST(ScheduleTreeTest, AnExecutionThatDivergesOnItsPrefixIsReported) {
  ScheduleTree tree(-1);
  ASSERT_TRUE(tree.Next().has_value());
  ASSERT_TRUE(tree.Record({0, 0}, {{2, false}, {2, true}}).ok());
  const auto next = tree.Next();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(*next, (std::vector<std::uint64_t>{0, 1}));
  // The first point now offers three answers where it offered two.
  const absl::Status s = tree.Record({0, 1}, {{3, false}, {2, true}});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("not deterministic"), std::string::npos);
}

TEST(ScheduleTreeTest, AnExecutionShorterThanItsPrefixIsReported) {
  ScheduleTree tree(-1);
  ASSERT_TRUE(tree.Next().has_value());
  ASSERT_TRUE(tree.Record({0, 0}, {{2, false}, {2, true}}).ok());
  ASSERT_TRUE(tree.Next().has_value());
  EXPECT_FALSE(tree.Record({0}, {{2, false}}).ok());
}

TEST(ScheduleTreeTest, TooWideAPointIsRefused) {
  ScheduleTree tree(-1);
  ASSERT_TRUE(tree.Next().has_value());
  EXPECT_FALSE(tree.Record({0}, {{std::uint64_t{1} << 40, false}}).ok());
}

}  // namespace
}  // namespace stackcheck::properties
