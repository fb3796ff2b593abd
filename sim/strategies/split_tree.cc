#include "sim/strategies/split_tree.h"

#include <algorithm>
#include <utility>

namespace stackcheck::sim {

SplitTree::SplitTree(bool wait_for_work) : wait_for_work_(wait_for_work) {}
SplitTree::~SplitTree() = default;

SplitTree::Node* SplitTree::Open(Node* parent, std::uint32_t parent_option, bool is_actor,
                                 const Candidates& runnable, std::vector<std::uint32_t> order,
                                 absl::Span<const std::uint8_t> flags,
                                 const std::vector<bool>& asleep, std::uint32_t* option,
                                 Candidates* done) {
  auto node = std::make_unique<Node>();
  node->parent = parent;
  node->parent_option = parent_option;
  node->is_actor = is_actor;
  node->runnable = runnable;
  node->done_at.resize(flags.size());
  node->order = std::move(order);
  node->flags.resize(flags.size());
  node->children.resize(flags.size());
  for (std::size_t k = 0; k < flags.size(); ++k) {
    node->flags[k] = static_cast<std::uint8_t>((flags[k] & kBacktrack) |
                                               (k < asleep.size() && asleep[k] ? kAsleep : 0));
  }
  absl::MutexLock lock(&mu_);
  Node* raw = node.get();
  if (parent == nullptr) {
    root_ = std::move(node);
  } else {
    parent->children[parent_option] = std::move(node);
  }
  const std::size_t before = scheduled_.size();
  for (std::uint32_t k = 0; k < raw->flags.size(); ++k) {
    if (raw->flags[k] & kBacktrack) scheduled_.push_back({raw, k});
  }
  const bool claimed = ClaimNextLocked(raw, option, done);
  if (scheduled_.size() > before) work_changed_.SignalAll();
  return claimed ? raw : nullptr;
}

void SplitTree::Finish(Node* node, std::uint32_t option) {
  absl::MutexLock lock(&mu_);
  if (node != nullptr) node->flags[option] |= kFinished;
  ++finished_;
  if (--outstanding_ == 0) work_changed_.SignalAll();  // the search may be over
}

bool SplitTree::SameShape(const Node* node, bool is_actor, std::size_t options) const {
  return node->is_actor == is_actor && node->flags.size() == options;
}

SplitTree::Candidates SplitTree::DoneAt(const Node* node, std::uint32_t option) const {
  absl::MutexLock lock(&mu_);
  return node->done_at[option];
}

void SplitTree::NoteCut() {
  absl::MutexLock lock(&mu_);
  cut_ = true;
}

bool SplitTree::cut() const {
  absl::MutexLock lock(&mu_);
  return cut_;
}

double SplitTree::FinishedShare() const {
  absl::MutexLock lock(&mu_);
  std::uint64_t unclaimed = 0;
  for (const Step& s : scheduled_) unclaimed += Claimable(s.node, s.option) ? 1 : 0;
  const std::uint64_t all = claims_ + unclaimed;
  return all == 0 ? 0 : static_cast<double>(finished_) / static_cast<double>(all);
}

bool SplitTree::Claimable(const Node* node, std::uint32_t option) const {
  const std::uint8_t f = node->flags[option];
  return (f & kBacktrack) && !(f & kClaimed);
}

void SplitTree::ClaimLocked(Node* node, std::uint32_t option, Candidates* done) {
  node->flags[option] |= kClaimed | kExplored;
  ++outstanding_;
  ++claims_;
  done->clear();
  if (node->is_actor) {
    for (std::uint32_t j : node->order) {
      const std::uint8_t f = node->flags[j];
      if (j != option && (f & kExplored) && (f & kSettled) && !(f & kMayEnd)) {
        done->push_back(node->runnable[j]);
      }
    }
  }
  node->done_at[option] = *done;
}

bool SplitTree::ClaimNextLocked(Node* node, std::uint32_t* option, Candidates* done) {
  for (std::uint32_t k : node->order) {
    if (!Claimable(node, k)) continue;
    if (node->flags[k] & kAsleep) {
      node->flags[k] |= kClaimed;
      ++sleep_pruned_;
      continue;
    }
    ClaimLocked(node, k, done);
    *option = k;
    return true;
  }
  return false;
}

bool SplitTree::ClaimNext(Node* node, std::uint32_t* option, Candidates* done) {
  absl::MutexLock lock(&mu_);
  return ClaimNextLocked(node, option, done);
}

void SplitTree::Publish(Node* node, absl::Span<std::uint8_t> flags) {
  absl::MutexLock lock(&mu_);
  for (std::uint32_t k = 0; k < node->flags.size() && k < flags.size(); ++k) {
    std::uint8_t& shared = node->flags[k];
    const std::uint8_t add = flags[k] & kPublished & ~shared;
    if ((add & kBacktrack) && !(shared & kClaimed)) {
      scheduled_.push_back({node, k});
      work_changed_.SignalAll();
    }
    shared |= add;
    flags[k] = static_cast<std::uint8_t>((flags[k] & ~kPublished) | (shared & kPublished));
  }
}

bool SplitTree::WorkOrEnd() const {
  if (cancelled_ || outstanding_ == 0 || !root_taken_ || !suspended_.empty()) return true;
  for (const Step& s : scheduled_) {
    if (Claimable(s.node, s.option)) return true;
  }
  return false;
}

SplitTree::Work SplitTree::TakeWork(std::vector<Step>* path, std::string* suspended) {
  absl::MutexLock lock(&mu_);
  for (;;) {
    if (cancelled_) return Work::kCancelled;
    if (!suspended_.empty()) {
      *suspended = std::move(suspended_.back().stack);
      suspended_.pop_back();
      return Work::kResumed;
    }
    if (!root_taken_) {
      // The root is met by running the program: one worker does, and opens it.
      root_taken_ = true;
      ++outstanding_;
      path->clear();
      return Work::kClaimed;
    }
    // The latest scheduled first: deep in the tree, near what was explored.
    while (!scheduled_.empty()) {
      const Step s = scheduled_.back();
      scheduled_.pop_back();
      if (!Claimable(s.node, s.option)) continue;
      if (s.node->flags[s.option] & kAsleep) {
        s.node->flags[s.option] |= kClaimed;
        ++sleep_pruned_;
        continue;
      }
      Candidates done;
      ClaimLocked(s.node, s.option, &done);
      path->clear();
      path->push_back(s);
      for (Node* n = s.node; n->parent != nullptr; n = n->parent) {
        path->push_back({n->parent, n->parent_option});
      }
      std::reverse(path->begin(), path->end());
      return Work::kClaimed;
    }
    if (outstanding_ == 0) return Work::kDone;
    if (!wait_for_work_) return Work::kWait;
    // A condition variable, not Mutex::Await: Await evaluates the condition
    // inside Abseil, where --config=tsan's shim cannot show TSan the lock.
    while (!WorkOrEnd()) work_changed_.Wait(&mu_);
  }
}

void SplitTree::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  work_changed_.SignalAll();
}

std::uint64_t SplitTree::claims() const {
  absl::MutexLock lock(&mu_);
  return claims_;
}

std::uint64_t SplitTree::sleep_pruned() const {
  absl::MutexLock lock(&mu_);
  return sleep_pruned_;
}

}  // namespace stackcheck::sim
