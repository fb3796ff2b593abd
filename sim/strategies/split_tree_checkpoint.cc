// SplitTree's side of a stopped search: the suspended workers' stacks, and
// the shared top as text, so that a search stopped by a budget or a signal
// goes on later where it stood.
//
// The format is one line of counters, one line per node in pre-order (a
// node's parent is an earlier node line), one line per suspended stack, then
// `end`, so that a truncated file is refused rather than read as a smaller
// tree:
//
//   stackcheck split-tree 1
//   counters ROOT_TAKEN CLAIMS FINISHED SLEEP_PRUNED CUT
//   node PARENT+1 PARENT_OPTION IS_ACTOR N ORDER[N] FLAGS[N]
//        RUNNABLE_COUNT CANDIDATE[RUNNABLE_COUNT]
//        (DONE_COUNT CANDIDATE[DONE_COUNT]) x N
//   suspended CLAIMS_HELD STACK...
//   end
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "sim/strategies/number_line.h"
#include "sim/strategies/split_tree.h"

namespace stackcheck::sim {
namespace {

constexpr absl::string_view kHeader = "stackcheck split-tree 1";
// Far beyond any scheduling point's candidates; bounds what a damaged file
// can make Load allocate.
constexpr std::uint64_t kMaxOptions = 1 << 16;

std::string LineName(std::size_t index) { return absl::StrCat("split-tree line ", index + 1); }

// The first line and the last, which tell a split tree from another file and
// a whole one from a truncated one.
absl::Status CheckFraming(const std::vector<absl::string_view>& lines) {
  if (lines.empty() || lines[0] != kHeader) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a split tree: the first line is not '", kHeader, "'"));
  }
  if (lines.size() < 3 || lines.back() != "end") {
    return absl::InvalidArgumentError("the split tree is cut short: its last line is not 'end'");
  }
  return absl::OkStatus();
}

struct Counters {
  std::uint64_t root_taken = 0, claims = 0, finished = 0, sleep_pruned = 0, cut = 0;
};

absl::Status ReadCounters(absl::string_view line, Counters* c) {
  NumberLine counters(line, LineName(1));
  if (counters.Word() != "counters") counters.Fail("is not the counters");
  counters.Read(1, &c->root_taken);
  counters.Read(UINT64_MAX, &c->claims);
  counters.Read(UINT64_MAX, &c->finished);
  counters.Read(UINT64_MAX, &c->sleep_pruned);
  counters.Read(1, &c->cut);
  return counters.Done();
}

// Where a node line hangs its node: below option `parent_option` of the node
// on node line `parent_plus_one` (0: it is the root).
struct NodePlace {
  std::uint64_t parent_plus_one = 0;
  std::uint64_t parent_option = 0;
};

// Node line `index`, after `nodes_before` others: a node of its own, not yet
// hung in the tree.
absl::StatusOr<std::unique_ptr<SplitTree::Node>> ReadNode(absl::string_view line, std::size_t index,
                                                          std::size_t nodes_before,
                                                          NodePlace* place) {
  NumberLine in(line, LineName(index));
  in.Word();
  std::uint64_t is_actor = 0, n = 0;
  in.Read(nodes_before, &place->parent_plus_one);
  in.Read(kMaxOptions, &place->parent_option);
  in.Read(1, &is_actor);
  if (in.Read(kMaxOptions, &n) && n == 0) in.Fail("has a node without options");
  // Its order, flags and done lists take 3n fields, its runnable list one
  // more: a count the line cannot hold sizes nothing.
  if (in.ok() && in.Remaining() < 3 * n + 1) {
    in.Fail(absl::StrFormat("has %d options but only %d fields for them", n, in.Remaining()));
  }
  if (!in.ok()) return in.Done();
  if (in.ok() && (nodes_before == 0) != (place->parent_plus_one == 0)) {
    in.Fail(nodes_before == 0 ? "(the root) names a parent" : "has a second root");
  }
  auto node = std::make_unique<SplitTree::Node>();
  node->is_actor = is_actor != 0;
  node->order.resize(n);
  node->flags.resize(n);
  node->done_at.resize(n);
  node->children.resize(n);
  std::vector<bool> seen(n, false);
  for (std::uint32_t& k : node->order) {
    if (in.ReadAs(n - 1, &k) && seen[k]) in.Fail("lists an option twice in its order");
    if (in.ok()) seen[k] = true;
  }
  for (std::uint8_t& f : node->flags) in.ReadAs(255, &f);
  in.ReadCandidates(n, &node->runnable);
  if (in.ok() && node->is_actor && node->runnable.size() != n) {
    in.Fail("lacks its runnable actors");
  }
  for (SplitTree::Candidates& done : node->done_at) in.ReadCandidates(n, &done);
  if (absl::Status s = in.Done(); !s.ok()) return s;
  return node;
}

// Suspended-stack line `index`: "suspended CLAIMS_HELD STACK...".
absl::Status ReadSuspended(absl::string_view line, std::size_t index, std::uint64_t* claims_held,
                           std::string* stack) {
  if (!absl::ConsumePrefix(&line, "suspended ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(LineName(index), " is neither a node nor a suspended stack"));
  }
  const std::size_t space = line.find(' ');
  NumberLine count(line.substr(0, space), LineName(index));
  count.Read(UINT32_MAX, claims_held);
  if (absl::Status status = count.Done(); !status.ok()) return status;
  *stack = std::string(space == absl::string_view::npos ? "" : line.substr(space));
  return absl::OkStatus();
}

}  // namespace

void SplitTree::Suspend(std::string stack, std::uint64_t claims_held) {
  absl::MutexLock lock(&mu_);
  suspended_.push_back({std::move(stack), claims_held});
  work_changed_.SignalAll();
}

SplitTree::Node* SplitTree::Child(Node* parent, std::uint32_t option) const {
  absl::MutexLock lock(&mu_);
  if (parent == nullptr) return root_.get();
  return option < parent->children.size() ? parent->children[option].get() : nullptr;
}

std::string SplitTree::Save() const {
  absl::MutexLock lock(&mu_);
  std::string out = absl::StrCat(kHeader, "\ncounters");
  // Without a root, the root's opening was taken and is over (a search of
  // one execution), or is still to be run again.
  const bool root_taken = root_ != nullptr || (root_taken_ && outstanding_ == 0);
  for (std::uint64_t v :
       {std::uint64_t{root_taken}, claims_, finished_, sleep_pruned_, std::uint64_t{cut_}}) {
    Put(&out, v);
  }
  out += "\n";
  // Pre-order, each node with its parent's line number among the nodes.
  std::vector<std::pair<const Node*, std::uint64_t>> stack;
  if (root_ != nullptr) stack.push_back({root_.get(), 0});
  std::uint64_t next_index = 0;
  while (!stack.empty()) {
    const auto [node, parent_plus_one] = stack.back();
    stack.pop_back();
    const std::uint64_t index = next_index++;
    const std::size_t n = node->flags.size();
    out += "node";
    for (std::uint64_t v : {parent_plus_one, std::uint64_t{node->parent_option},
                            std::uint64_t{node->is_actor}, std::uint64_t{n}}) {
      Put(&out, v);
    }
    for (std::uint32_t k : node->order) Put(&out, k);
    for (std::uint8_t f : node->flags) Put(&out, f);
    PutCandidates(&out, node->runnable);
    for (const Candidates& done : node->done_at) PutCandidates(&out, done);
    out += "\n";
    // Children in reverse, so that they come out in option order.
    for (std::size_t k = n; k-- > 0;) {
      if (node->children[k] != nullptr) stack.push_back({node->children[k].get(), index + 1});
    }
  }
  for (const Suspended& s : suspended_) {
    absl::StrAppend(&out, "suspended ", s.claims_held, s.stack, "\n");
  }
  return out + "end\n";
}

std::uint64_t SplitTree::ClaimsInProgress(const Node& node) {
  std::uint64_t in_progress = 0;
  for (std::uint8_t f : node.flags) {
    if ((f & kClaimed) && (f & kExplored) && !(f & kFinished)) ++in_progress;
  }
  return in_progress;
}

absl::Status SplitTree::HangNode(std::unique_ptr<Node> node, std::uint64_t parent_option,
                                 Node* parent, std::size_t index) {
  const char* wrong = nullptr;
  if (parent_option >= parent->children.size()) {
    wrong = "has no such option";
  } else if (parent->children[parent_option] != nullptr) {
    wrong = "another node opened";
  } else if (!(parent->flags[parent_option] & kClaimed)) {
    wrong = "nobody claimed";
  }
  if (wrong != nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat("%s opens option %d of its parent, which %s",
                                                      LineName(index), parent_option, wrong));
  }
  node->parent = parent;
  node->parent_option = static_cast<std::uint32_t>(parent_option);
  parent->children[parent_option] = std::move(node);
  return absl::OkStatus();
}

absl::Status SplitTree::Load(absl::string_view text) {
  absl::MutexLock lock(&mu_);
  if (root_taken_ || root_ != nullptr) {
    return absl::FailedPreconditionError("a split tree is loaded only before its search starts");
  }
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (absl::Status s = CheckFraming(lines); !s.ok()) return s;
  Counters counters;
  if (absl::Status s = ReadCounters(lines[1], &counters); !s.ok()) return s;

  std::unique_ptr<Node> root;
  std::vector<Node*> by_index;
  std::uint64_t in_progress = 0;
  std::size_t i = 2;
  for (; i + 1 < lines.size() && absl::StartsWith(lines[i], "node "); ++i) {
    NodePlace place;
    absl::StatusOr<std::unique_ptr<Node>> node = ReadNode(lines[i], i, by_index.size(), &place);
    if (!node.ok()) return node.status();
    Node* raw = node->get();
    in_progress += ClaimsInProgress(*raw);
    if (place.parent_plus_one == 0) {
      root = *std::move(node);
    } else if (absl::Status s = HangNode(*std::move(node), place.parent_option,
                                         by_index[place.parent_plus_one - 1], i);
               !s.ok()) {
      return s;
    }
    by_index.push_back(raw);
  }
  std::vector<Suspended> suspended;
  std::uint64_t held = 0;
  for (; i + 1 < lines.size(); ++i) {
    Suspended s;
    if (absl::Status status = ReadSuspended(lines[i], i, &s.claims_held, &s.stack); !status.ok()) {
      return status;
    }
    held += s.claims_held;
    suspended.push_back(std::move(s));
  }
  if (root != nullptr && counters.root_taken == 0) {
    return absl::InvalidArgumentError("the split tree has a root it says was never opened");
  }
  if (held != in_progress) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the split tree has %d claims in progress but its suspended stacks hold %d: the "
        "search would wait for the others forever",
        in_progress, held));
  }
  root_ = std::move(root);
  root_taken_ = counters.root_taken != 0;
  claims_ = counters.claims;
  finished_ = counters.finished;
  sleep_pruned_ = counters.sleep_pruned;
  cut_ = counters.cut != 0;
  outstanding_ = in_progress;
  suspended_ = std::move(suspended);
  for (Node* node : by_index) {
    for (std::uint32_t k = 0; k < node->flags.size(); ++k) {
      if (Claimable(node, k)) scheduled_.push_back({node, k});
    }
  }
  return absl::OkStatus();
}

}  // namespace stackcheck::sim
