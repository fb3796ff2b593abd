// SplitTree's bookkeeping, one call at a time: what TakeWork hands out, when
// the search is done, and which options sleep. dfs_strategy_test checks the
// split search end to end on random toy systems, where some of these cases
// are rare (an option scheduled at a node whose claimant has moved on is
// usually claimed by the worker below it, which backtracks there first).
#include "sim/strategies/split_tree.h"

#include <cstdint>
#include <string>
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

// TakeWork for a caller that resumes no suspended stack.
Work Take(SplitTree& tree, std::vector<SplitTree::Step>* path) {
  std::string suspended;
  const Work w = tree.TakeWork(path, &suspended);
  EXPECT_NE(w, Work::kResumed);
  return w;
}

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
    ASSERT_EQ(Take(tree, &path), Work::kClaimed);
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
  tree.Finish(nullptr, 0);  // the root's opening claim
  // A second worker finds nothing yet while the first explores option 0.
  std::vector<SplitTree::Step> path;
  EXPECT_EQ(Take(tree, &path), Work::kWait);
  // The first worker's race schedules option 2 at the root, then its claim
  // ends without backtracking there.
  std::vector<std::uint8_t> flags = {kBacktrack | kSettled, 0, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  tree.Finish(root, 0);
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
  ASSERT_EQ(path.size(), 1u);
  EXPECT_EQ(path[0].node, root);
  EXPECT_EQ(path[0].option, 2u);
  // Option 0 ran and its step cannot end an execution: it sleeps below 2.
  EXPECT_EQ(Actors(tree.DoneAt(root, 2)), std::vector<ActorId>{0});
  tree.Finish(root, 2);
  EXPECT_EQ(Take(tree, &path), Work::kDone);
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
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0].node, root);
  EXPECT_EQ(path[0].option, 0u);
  EXPECT_EQ(path[1].node, child);
  EXPECT_EQ(path[1].option, 1u);
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
  ASSERT_EQ(path.size(), 1u);
  EXPECT_EQ(path[0].option, 1u);
  // Both are claimed: publishing them again schedules nothing.
  tree.Publish(root, absl::MakeSpan(root_flags));
  tree.Publish(child, absl::MakeSpan(child_flags));
  EXPECT_EQ(Take(tree, &path), Work::kWait);
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
  EXPECT_EQ(Take(tree, &path), Work::kWait);  // its queue entry is stale
  EXPECT_FALSE(tree.ClaimNext(root, &option, &done));
}

TEST(SplitTreeTest, AnOptionAsleepOnEntryIsPrunedNotClaimed) {
  SplitTree tree(/*wait_for_work=*/false);
  Shape shape(3);
  shape.asleep = {true, false, false};
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
  std::vector<std::uint8_t> flags = {kBacktrack, kBacktrack, 0};
  std::uint32_t option = 99;
  Candidates done;
  SplitTree::Node* root = tree.Open(nullptr, 0, /*is_actor=*/true, shape.runnable, shape.order,
                                    flags, shape.asleep, &option, &done);
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(option, 1u);
  EXPECT_EQ(tree.sleep_pruned(), 1u);
  tree.Finish(nullptr, 0);
  tree.Finish(root, 1);
  EXPECT_EQ(Take(tree, &path), Work::kDone);
}

TEST(SplitTreeTest, EveryOptionAsleepOpensNothingClaimable) {
  SplitTree tree(/*wait_for_work=*/false);
  Shape shape(2);
  shape.asleep = {true, true};
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
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
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
  tree.Cancel();
  // Would wait for the claim above to end or schedule work; cancelled, it
  // returns at once.
  EXPECT_EQ(Take(tree, &path), Work::kCancelled);
}

TEST_F(SplitTreeOpened, FinishedShareCountsUnclaimedScheduledOptions) {
  OpenRoot(3);
  tree.Finish(nullptr, 0);  // the opening; option 0 is still explored
  std::vector<std::uint8_t> flags = {kBacktrack, kBacktrack, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  // One finish (the opening) over one claim (option 0) and two options
  // scheduled unclaimed (1 and 2).
  EXPECT_DOUBLE_EQ(tree.FinishedShare(), 1.0 / 3.0);
}

// A search stopped with a worker mid-claim: its stack goes to the tree,
// holding the claim, and the first worker of the resumed search gets it.
TEST_F(SplitTreeOpened, ASuspendedStackIsHandedOutFirstAndHoldsItsClaim) {
  OpenRoot(3);
  tree.Finish(nullptr, 0);
  std::vector<std::uint8_t> flags = {kBacktrack | kSettled, 0, kBacktrack};
  tree.Publish(root, absl::MakeSpan(flags));
  tree.Suspend(" 7 8 9", /*claims_held=*/1);  // option 0's claimant
  const std::string saved = tree.Save();

  SplitTree resumed(/*wait_for_work=*/false);
  ASSERT_TRUE(resumed.Load(saved).ok()) << saved;
  EXPECT_EQ(resumed.Save(), saved);
  std::vector<SplitTree::Step> path;
  std::string stack;
  ASSERT_EQ(resumed.TakeWork(&path, &stack), Work::kResumed);
  EXPECT_EQ(stack, " 7 8 9");
  SplitTree::Node* top = resumed.Child(nullptr, 0);
  ASSERT_NE(top, nullptr);
  EXPECT_TRUE(resumed.SameShape(top, /*is_actor=*/true, 3));
  EXPECT_EQ(resumed.Child(top, 0), nullptr);
  // Option 2, scheduled, sleeps on option 0 as before the stop.
  ASSERT_EQ(Take(resumed, &path), Work::kClaimed);
  ASSERT_EQ(path.size(), 1u);
  EXPECT_EQ(path[0].option, 2u);
  EXPECT_EQ(Actors(resumed.DoneAt(top, 2)), std::vector<ActorId>{0});
  resumed.Finish(top, 2);
  // The resumed stack's claim is still in progress.
  EXPECT_EQ(Take(resumed, &path), Work::kWait);
  resumed.Finish(top, 0);
  EXPECT_EQ(Take(resumed, &path), Work::kDone);
}

TEST_F(SplitTreeOpened, LoadRefusesClaimsInProgressThatNoSuspendedStackHolds) {
  OpenRoot(2);
  tree.Finish(nullptr, 0);
  SplitTree resumed(/*wait_for_work=*/false);
  const absl::Status s = resumed.Load(tree.Save());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("forever"), absl::string_view::npos) << s;
}

TEST(SplitTreeTest, ASearchSavedBeforeItsRootOpenedStartsOver) {
  SplitTree tree(/*wait_for_work=*/false);
  std::vector<SplitTree::Step> path;
  ASSERT_EQ(Take(tree, &path), Work::kClaimed);
  SplitTree resumed(/*wait_for_work=*/false);
  ASSERT_TRUE(resumed.Load(tree.Save()).ok()) << tree.Save();
  ASSERT_EQ(Take(resumed, &path), Work::kClaimed);
  EXPECT_TRUE(path.empty());
}

TEST_F(SplitTreeOpened, LoadRefusesWhatASaveCannotHaveWritten) {
  OpenRoot(2);
  tree.Finish(nullptr, 0);
  tree.Suspend(" 1", 1);
  const std::string good = tree.Save();
  auto load = [](const std::string& text) {
    SplitTree t(/*wait_for_work=*/false);
    return t.Load(text);
  };
  ASSERT_TRUE(load(good).ok()) << good;
  auto replaced = [&good](const std::string& from, const std::string& to) {
    std::string s = good;
    const std::size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  const std::vector<std::string> bad = {
      "",
      "stackcheck split-tree 2\n",
      replaced("end\n", ""),                             // cut short
      replaced("counters 1", "counters 7"),              // out of range
      replaced("node 0 0 1 2 0 1", "node 0 0 1 2 0 0"),  // order not a permutation
      replaced("node 0 0 1 2", "node 1 0 1 2"),          // the root names a parent
      replaced("node 0 0 1 2", "node 0 0 1 0"),          // no options
      replaced("node 0", "nod 0"),
      replaced("suspended 1", "suspended 2"),  // holds a claim nobody made
      replaced("suspended 1", "suspended x"),
      replaced("\nsuspended", " 5\nsuspended"),                            // a number left over
      replaced("\nsuspended", "\nnode 1 1 0 2 0 1 0 0 0 0 0\nsuspended"),  // below no claim
  };
  for (const std::string& text : bad) {
    const absl::Status s = load(text);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
  }
  // A tree in use is not loaded over.
  EXPECT_EQ(tree.Load(good).code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace stackcheck::sim
