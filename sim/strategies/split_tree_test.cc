// SplitTree's bookkeeping, one call at a time: what TakeWork hands out, when
// the search is done, and which options sleep. dfs_strategy_test checks the
// split search end to end on random toy systems, where some of these cases
// are rare (an option scheduled at a node whose claimant has moved on is
// usually claimed by the worker below it, which backtracks there first).
#include "sim/strategies/split_tree.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace stackcheck::sim {
namespace {

using Candidates = SplitTree::Candidates;
using Work = SplitTree::Work;
constexpr std::uint8_t kBacktrack = SplitTree::kBacktrack;
constexpr std::uint8_t kMayEnd = SplitTree::kMayEnd;
constexpr std::uint8_t kSettled = SplitTree::kSettled;

// A node of `n` actor options (actors 0..n-1), explored in order 0..n-1.
struct Shape {
  explicit Shape(std::uint32_t n) {
    for (std::uint32_t k = 0; k < n; ++k) {
      runnable.push_back(Candidate{k, Footprint{}});
      order.push_back(k);
    }
    asleep.assign(n, false);
  }
  Candidates runnable;
  std::vector<std::uint32_t> order;
  std::vector<bool> asleep;
};

std::vector<ActorId> Actors(const Candidates& c) {
  std::vector<ActorId> out;
  for (const Candidate& x : c) out.push_back(x.actor);
  return out;
}

// A search whose first worker took the root's opening and opened a root of
// `n` options with option 0 scheduled, which it claimed.
class SplitTreeOpened : public ::testing::Test {
 protected:
  void OpenRoot(std::uint32_t n) {
    shape = Shape(n);
    std::vector<SplitTree::Step> path;
    ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
    EXPECT_TRUE(path.empty());  // the root's opening: run the program to meet it
    std::vector<std::uint8_t> flags(n, 0);
    flags[0] = kBacktrack;
    root = tree.Open(nullptr, 0, /*is_actor=*/true, shape.runnable, shape.order, flags,
                     shape.asleep, &option, &done);
    ASSERT_NE(root, nullptr);
  }

  SplitTree tree{/*wait_for_work=*/false};
  Shape shape{0};
  std::uint32_t option = 99;
  Candidates done;
  SplitTree::Node* root = nullptr;
};

TEST_F(SplitTreeOpened, AnOptionScheduledAfterItsNodesClaimantMovedOnIsHandedOut) {
  OpenRoot(3);
  EXPECT_EQ(option, 0u);
  tree.Finish();  // the root's opening claim
  // A second worker finds nothing yet while the first explores option 0.
  std::vector<SplitTree::Step> path;
  EXPECT_EQ(tree.TakeWork(&path), Work::kWait);
  // The first worker's race schedules option 2 at the root, then its claim
  // ends without backtracking there.
  std::vector<std::uint8_t> flags = {kBacktrack | kSettled, 0, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  tree.Finish();
  ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
  ASSERT_EQ(path.size(), 1u);
  EXPECT_EQ(path[0].node, root);
  EXPECT_EQ(path[0].option, 2u);
  // Option 0 ran and its step cannot end an execution: it sleeps below 2.
  EXPECT_EQ(Actors(tree.DoneAt(root, 2)), std::vector<ActorId>{0});
  tree.Finish();
  EXPECT_EQ(tree.TakeWork(&path), Work::kDone);
  EXPECT_EQ(tree.claims(), 2u);  // options 0 and 2 (the opening is no option)
}

TEST_F(SplitTreeOpened, TheQueueHandsOutTheDeepestOptionWithItsPathFromTheRoot) {
  OpenRoot(2);
  // Below option 0 the first worker opens a child and claims its option 0.
  std::vector<std::uint8_t> child_flags = {kBacktrack, 0};
  SplitTree::Node* child = tree.Open(root, 0, /*is_actor=*/true, shape.runnable, shape.order,
                                     child_flags, shape.asleep, &option, &done);
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(option, 0u);
  // Its races schedule option 1 at the root, then option 1 at the child.
  std::vector<std::uint8_t> root_flags = {kBacktrack, kBacktrack};
  tree.Publish(root, absl::MakeSpan(root_flags));
  child_flags = {kBacktrack, kBacktrack};
  tree.Publish(child, absl::MakeSpan(child_flags));
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0].node, root);
  EXPECT_EQ(path[0].option, 0u);
  EXPECT_EQ(path[1].node, child);
  EXPECT_EQ(path[1].option, 1u);
  ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
  ASSERT_EQ(path.size(), 1u);
  EXPECT_EQ(path[0].option, 1u);
  // Both are claimed: publishing them again schedules nothing.
  tree.Publish(root, absl::MakeSpan(root_flags));
  tree.Publish(child, absl::MakeSpan(child_flags));
  EXPECT_EQ(tree.TakeWork(&path), Work::kWait);
}

TEST_F(SplitTreeOpened, AWorkerBacktrackingToItsNodeClaimsBeforeTheQueue) {
  OpenRoot(2);
  std::vector<std::uint8_t> flags = {kBacktrack | kSettled | kMayEnd, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  ASSERT_TRUE(tree.ClaimNext(root, &option, &done));
  EXPECT_EQ(option, 1u);
  // Option 0's step may end an execution: it never sleeps.
  EXPECT_TRUE(done.empty());
  std::vector<SplitTree::Step> path;
  EXPECT_EQ(tree.TakeWork(&path), Work::kWait);  // its queue entry is stale
  EXPECT_FALSE(tree.ClaimNext(root, &option, &done));
}

TEST(SplitTreeTest, AnOptionAsleepOnEntryIsPrunedNotClaimed) {
  SplitTree tree(/*wait_for_work=*/false);
  Shape shape(3);
  shape.asleep = {true, false, false};
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
  std::vector<std::uint8_t> flags = {kBacktrack, kBacktrack, 0};
  std::uint32_t option = 99;
  Candidates done;
  SplitTree::Node* root = tree.Open(nullptr, 0, /*is_actor=*/true, shape.runnable, shape.order,
                                    flags, shape.asleep, &option, &done);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(option, 1u);
  EXPECT_EQ(tree.sleep_pruned(), 1u);
  tree.Finish();
  tree.Finish();
  EXPECT_EQ(tree.TakeWork(&path), Work::kDone);
}

TEST(SplitTreeTest, EveryOptionAsleepOpensNothingClaimable) {
  SplitTree tree(/*wait_for_work=*/false);
  Shape shape(2);
  shape.asleep = {true, true};
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
  std::vector<std::uint8_t> flags = {kBacktrack, kBacktrack};
  std::uint32_t option = 99;
  Candidates done;
  EXPECT_EQ(tree.Open(nullptr, 0, /*is_actor=*/true, shape.runnable, shape.order, flags,
                      shape.asleep, &option, &done),
            nullptr);
  EXPECT_EQ(tree.sleep_pruned(), 2u);
}

TEST_F(SplitTreeOpened, OnlySettledExploredOptionsThatCannotEndSleep) {
  OpenRoot(4);
  // Claim options 1 and 2 too, then settle: 0 cannot end, 1 may, 2 unknown.
  std::vector<std::uint8_t> flags = {kBacktrack, kBacktrack, kBacktrack, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  ASSERT_TRUE(tree.ClaimNext(root, &option, &done));
  ASSERT_TRUE(tree.ClaimNext(root, &option, &done));
  flags = {kSettled, kSettled | kMayEnd, 0, 0};
  tree.Publish(root, absl::MakeSpan(flags));
  ASSERT_TRUE(tree.ClaimNext(root, &option, &done));
  EXPECT_EQ(option, 3u);
  EXPECT_EQ(Actors(done), std::vector<ActorId>{0});
  EXPECT_EQ(Actors(tree.DoneAt(root, 3)), std::vector<ActorId>{0});
}

TEST(SplitTreeTest, CancelEndsEveryTakeWork) {
  SplitTree tree(/*wait_for_work=*/true);
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(tree.TakeWork(&path), Work::kClaimed);
  tree.Cancel();
  // Would wait for the claim above to end or schedule work; cancelled, it
  // returns at once.
  EXPECT_EQ(tree.TakeWork(&path), Work::kCancelled);
}

TEST_F(SplitTreeOpened, FinishedShareCountsUnclaimedScheduledOptions) {
  OpenRoot(3);
  tree.Finish();  // the opening; option 0 is still explored
  std::vector<std::uint8_t> flags = {kBacktrack, kBacktrack, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  // One finish (the opening) over one claim (option 0) and two options
  // scheduled unclaimed (1 and 2).
  EXPECT_DOUBLE_EQ(tree.FinishedShare(), 1.0 / 3.0);
}

}  // namespace
}  // namespace stackcheck::sim
