// The top of a split search, shared by the workers that explore it in
// parallel (DfsStrategy::Options::split_tree): the nodes met before an
// execution's first `split_choices` choices, with the state of each option.
//
// A worker claims one option of one node and explores its subtree as a
// DfsStrategy alone would: below the split its nodes are its own, and at the
// top nodes it meets first it opens them here and claims their first option
// itself. The races it finds may schedule options at top nodes (DPOR's
// backtracking); it publishes them, and an idle worker claims them (or the
// worker itself, when it backtracks to that node). So the top is reduced as
// in a search by one worker (with one worker the search is the same, option
// for option), and work spreads as the search finds it.
//
// Sleep sets across workers: an option explored at a node sleeps in the
// subtrees of the options claimed after it (while its step stays
// independent), as in the sequential search, once it is settled: its first
// execution showed whether its step may end an execution (such a step never
// sleeps, DfsStrategy's kMayEnd). An option not yet settled is left awake,
// which only costs reduction. A sleeping option's subtree is explored by
// whoever claimed it, so what the sleep prunes is covered there, finished
// or not.
#ifndef STACKCHECK_SIM_STRATEGIES_SPLIT_TREE_H_
#define STACKCHECK_SIM_STRATEGIES_SPLIT_TREE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class SplitTree {
 public:
  using Candidates = absl::InlinedVector<Candidate, 4>;
  // Per option, as the workers publish them.
  static constexpr std::uint8_t kBacktrack = 2;  // to explore (DPOR)
  static constexpr std::uint8_t kMayEnd = 4;     // its step may end an execution
  static constexpr std::uint8_t kSettled = 8;    // kMayEnd is known
  static constexpr std::uint8_t kPublished = kBacktrack | kMayEnd | kSettled;

  struct Node;
  // One step of a claim's path: the node and the option taken there.
  struct Step {
    Node* node;
    std::uint32_t option;
  };
  enum class Work { kClaimed, kResumed, kWait, kDone, kCancelled };

  // wait_for_work: TakeWork blocks while others still explore (threads);
  // false returns kWait instead (workers interleaved on one thread).
  explicit SplitTree(bool wait_for_work);
  ~SplitTree();
  SplitTree(const SplitTree&) = delete;
  SplitTree& operator=(const SplitTree&) = delete;

  // Opens the node reached by `parent`'s option `parent_option` (the root
  // when parent is null), which only the claimant of that option meets
  // first. `order`: its options in exploration order; `flags`: kBacktrack
  // where the worker wants them explored; `asleep`: options asleep on
  // entry, never explored. Claims the first eligible option for the caller
  // (as ClaimNext); null with no option claimable (every one asleep).
  Node* Open(Node* parent, std::uint32_t parent_option, bool is_actor, const Candidates& runnable,
             std::vector<std::uint32_t> order, absl::Span<const std::uint8_t> flags,
             const std::vector<bool>& asleep, std::uint32_t* option, Candidates* done);
  // Ends the caller's claim of `option` at `node`; a null node: the claim of
  // the root's first opening.
  void Finish(Node* node, std::uint32_t option);
  // Whether a replaying worker's node matches the one opened here.
  bool SameShape(const Node* node, bool is_actor, std::size_t options) const;
  // The `done` its claimant got for `option` of `node`.
  Candidates DoneAt(const Node* node, std::uint32_t option) const;
  // Some worker's search was cut (max_depth, a too-wide number choice).
  void NoteCut();
  bool cut() const;
  // Claims `node`'s next option that is scheduled, unclaimed and awake, in
  // exploration order; `done`: the settled options explored there so far
  // whose steps may sleep below it. False when none is left now.
  bool ClaimNext(Node* node, std::uint32_t* option, Candidates* done);
  // ORs a worker's kPublished bits for `node`'s options into the shared
  // ones and copies the shared bits back into `flags`.
  void Publish(Node* node, absl::Span<std::uint8_t> flags);
  // Claims a scheduled option anywhere; `path` gets the steps from the root
  // to it (the last is the claim). The first call of a search claims the
  // root's opening instead: an empty path. kResumed: `suspended` got a
  // suspended worker's stack to go on with instead.
  Work TakeWork(std::vector<Step>* path, std::string* suspended);
  // Wakes and ends every TakeWork: the search stops unfinished.
  void Cancel();

  // Options claimed so far (each explored by one worker): the units.
  std::uint64_t claims() const;
  // Options skipped as asleep when their turn came.
  std::uint64_t sleep_pruned() const;
  // Claims finished over claims made and options scheduled unclaimed: a
  // progress figure, low early (the search schedules more as it goes).
  double FinishedShare() const;

  // --- a search stopped before its end, to go on later (`check
  // --checkpoint`; split_tree_checkpoint.cc) ---
  // A worker stopped mid-claim (DfsStrategy::Suspend) leaves its stack, as
  // text, holding `claims_held` claims in progress; TakeWork hands it to the
  // next worker that asks, before any other work.
  void Suspend(std::string stack, std::uint64_t claims_held);
  // Once every worker has stopped or suspended: the tree, with the suspended
  // stacks, as text. Load fills a tree that has not been used from it;
  // InvalidArgument names what does not fit (claims in progress that no
  // suspended stack holds, say: the search would wait for them forever).
  std::string Save() const;
  absl::Status Load(absl::string_view text);
  // A resumed stack's top nodes: the root (parent null), else the node
  // opened below `option` of `parent`; null if none is.
  Node* Child(Node* parent, std::uint32_t option) const;

 private:
  // Shared-only bits, beside the published ones.
  static constexpr std::uint8_t kClaimed = 1;    // explored by a worker, or pruned asleep
  static constexpr std::uint8_t kExplored = 16;  // claimed and run (not pruned)
  static constexpr std::uint8_t kAsleep = 32;    // asleep on entry to the node
  static constexpr std::uint8_t kFinished = 64;  // its claimant's exploration ended
  struct Suspended {
    std::string stack;
    std::uint64_t claims_held = 0;
  };

  bool ClaimNextLocked(Node* node, std::uint32_t* option, Candidates* done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Claimable(const Node* node, std::uint32_t option) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void ClaimLocked(Node* node, std::uint32_t option, Candidates* done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool WorkOrEnd() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Load's steps that read the shared-only bits: how many of `node`'s
  // options a claimant was still exploring; `node` hung below `parent`'s
  // option `parent_option`, refused (naming line `index`) where no claim
  // could have opened it.
  static std::uint64_t ClaimsInProgress(const Node& node);
  static absl::Status HangNode(std::unique_ptr<Node> node, std::uint64_t parent_option,
                               Node* parent, std::size_t index);

  const bool wait_for_work_;
  mutable absl::Mutex mu_;
  // Signalled whenever WorkOrEnd may have become true: an option scheduled,
  // the last claim finished, the search cancelled.
  absl::CondVar work_changed_;
  std::unique_ptr<Node> root_ ABSL_GUARDED_BY(mu_);
  // Options scheduled while unclaimed; entries claimed since are skipped.
  std::deque<Step> scheduled_ ABSL_GUARDED_BY(mu_);
  std::uint64_t outstanding_ ABSL_GUARDED_BY(mu_) = 0;  // claims not finished
  std::uint64_t claims_ ABSL_GUARDED_BY(mu_) = 0;
  std::uint64_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  bool root_taken_ ABSL_GUARDED_BY(mu_) = false;
  bool cut_ ABSL_GUARDED_BY(mu_) = false;
  std::uint64_t sleep_pruned_ ABSL_GUARDED_BY(mu_) = 0;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Suspended> suspended_ ABSL_GUARDED_BY(mu_);
};

// The tree's own (split_tree.cc and split_tree_checkpoint.cc); callers hold
// pointers only.
struct SplitTree::Node {
  Node* parent = nullptr;
  std::uint32_t parent_option = 0;
  bool is_actor = false;
  Candidates runnable;                          // actor nodes
  std::vector<Candidates> done_at;              // by option: its claimant's `done`
  std::vector<std::uint32_t> order;             // options in exploration order
  std::vector<std::uint8_t> flags;              // by option
  std::vector<std::unique_ptr<Node>> children;  // by option, opened lazily
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_SPLIT_TREE_H_
