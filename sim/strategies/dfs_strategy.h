// Exhaustive depth-first search over the choice tree, stateless: each
// execution re-runs the program from the start, replaying the choices on the
// stack and branching at the deepest point that still has an unexplored
// option. Every answer (actor choice or number) is a branching point.
//
// Bounds and reduction:
//  - Preemption bound K: an actor choice that picks another actor while the
//    one that just ran is still runnable costs one preemption; options that
//    would take an execution past K preemptions are not explored. Within an
//    actor choice the current actor is tried first, then the others by index.
//  - Iterative bounding (CHESS): explore with bound 0, then 1, ... up to K,
//    each round only if the previous one was cut by its bound; finds the
//    shallowest-preemption bugs first at the price of re-running lower rounds.
//  - Sleep sets (Godefroid): after the subtree of option t at a node is done,
//    t sleeps in the subtrees of its later siblings for as long as only steps
//    independent of it (per Dependent()) run, since each such interleaving is
//    equivalent to one already explored. An execution in which every runnable
//    actor is asleep is redundant: it is finished with default answers and
//    counted in sleep_blocked.
//  - DPOR with source sets and sleep sets (Abdulla et al., POPL 2014),
//    unbounded search only: a node explores just the options it is shown to
//    need: its first one, plus, for every race found later between the step
//    taken at the node and a step of another actor, one actor that starts the
//    reversal (HappensBefore::Initials), unless one already is scheduled.
//    Races whose reversal could only block the later step until the
//    earlier one, or is impossible, are not reversed (Footprint::blocking,
//    HappensBefore::Reversible).
//    Races are analysed for every new step as it is taken and, for actors
//    still waiting to take their offered step, at the end of the execution.
//    With a preemption bound DPOR is switched off (the combination is not
//    sound without extra backtracking points) and sleep sets alone are used.
//    The last step of an execution counts as global: it may have ended the
//    process (or hit a violation), which stops every other actor, and the
//    engine cannot say so in advance; so it races with every step of another
//    actor it does not already follow, and with every step still pending,
//    and DPOR also explores the executions where those run before it. Nor
//    does it sleep (with or without DPOR): asleep, it would stay so across
//    steps its footprint calls independent, though it disables them.
//
// What exhausted() means: NewExecution() returned false because the tree, not
// the budget, ran out. Then every execution of the program whose preemptions
// stay within K is equivalent (same order of every pair of dependent steps,
// hence same outcome) to an explored one. Sleep sets are unsound when naively
// combined with a preemption bound (the explored equivalent of a pruned
// execution may need more than K preemptions, and so be cut). Here an option
// t is put to sleep only when either its own subtree was explored without any
// cut by the bound, or t is the current actor's step: an execution that runs
// another actor u first and t later (t independent of everything between)
// already paid a preemption at u, and the equivalent execution with t first
// pays at most that one at the switch to u, while the switch where t used to
// be can only lose its preemption; so it has no more preemptions and lies in
// t's subtree within the bound. A RapidCheck property checks the claim
// against plain bounded DFS on random systems (the naive rule fails it).
// bound_cut() says whether the bound cut anything at all: if not, the
// exploration was complete without bound.
//
// The claim rests on two things the engine must provide: determinism (the same
// answers give the same scheduling points; a divergence is reported in
// status() and stops the search) and footprints that cover everything a step
// touches that another actor can observe.
#ifndef STACKCHECK_SIM_STRATEGIES_DFS_STRATEGY_H_
#define STACKCHECK_SIM_STRATEGIES_DFS_STRATEGY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "sim/strategies/happens_before.h"
#include "sim/strategies/shard_plan.h"
#include "sim/strategies/split_tree.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class DfsStrategy : public Strategy {
 public:
  struct Options {
    int preemption_bound = -1;        // < 0: unbounded
    bool iterative_bounding = false;  // needs preemption_bound >= 0
    bool sleep_sets = true;           // false: plain DFS, for comparison
    bool dpor = true;                 // with sleep_sets and no preemption bound
    // Count each execution's last step as global (see above): in DPOR's
    // races, and for sleep sets (such a step never sleeps). The engine needs
    // it (an exit or a violation stops every actor); a system whose
    // executions end only when no actor can move does not.
    bool last_step_global = true;
    std::uint64_t max_executions = 0;  // 0: no budget
    // Choices per execution beyond which answers are defaults and not
    // branched on; reaching it makes the search not exhausted.
    std::size_t max_depth = std::size_t{1} << 20;
    // Split search (parallel exploration): > 0 shares the nodes met before
    // an execution's split_choices-th choice (the top) with the other
    // workers through `split_tree` (sim/strategies/split_tree.h): each
    // worker explores the subtrees of the top options it claims, and the
    // top is reduced as in one worker's search. Without a tree the strategy
    // makes one of its own (one worker).
    std::size_t split_choices = 0;
    std::shared_ptr<SplitTree> split_tree;
    // Sharded search (a proof split across processes that share nothing;
    // no preemption bound, no split tree): the nodes met before an
    // execution's `split_choices`-th choice are the top, and its leaves the
    // units. Every shard walks the whole top, each unit's subtree only if
    // the plan gives it the unit: one execution through it otherwise.
    // So that every shard sees the same top, whatever units it explores,
    // the top is reduced by sleep sets alone: every option that is awake is
    // explored (DPOR schedules no more there, as races found in one shard's
    // units cannot reach the others), and what puts an option to sleep is
    // known from the walk (whether its step ended an execution shows in the
    // first execution through it). Below a unit the search is DPOR's, with
    // the sleep set the top hands it.
    std::shared_ptr<ShardPlan> shard_plan;
  };

  struct Stats {
    std::uint64_t executions = 0;     // started
    std::uint64_t sleep_blocked = 0;  // executions found redundant
    std::uint64_t sleep_pruned = 0;   // options skipped: asleep
    std::uint64_t bound_pruned = 0;   // options skipped: preemption bound
    std::uint64_t depth_cut = 0;      // executions that hit max_depth
    std::size_t max_depth_seen = 0;   // most choices in one execution
    int rounds = 0;                   // bounding rounds started
  };

  explicit DfsStrategy(const Options& options);

  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;
  // True with DPOR, which must see every step.
  // A sharded search too: its units must begin at the same step in every
  // shard, whatever reduction runs below them.
  bool ObservesEveryStep() const override { return dpor_ || shard_plan_ != nullptr; }

  // Split search: stops this worker where it stands, after the execution
  // NewExecution() started ran (or at any point NewExecution() returned
  // false): the claims it holds and its stack below them go to the tree
  // (SplitTree::Suspend), for a worker of a later run of the same search to
  // go on with (dfs_strategy_suspend.cc). NewExecution() returns false after.
  void Suspend() override;
  SearchState State(bool estimate) const override;
  // A sharded search stopped by its caller (a budget, a signal) settles
  // whether its last execution finished the unit it was in, and leaves its
  // stack to the plan (ShardPlan::Suspended): a run with that progress goes
  // on from the next execution, inside the unit if it was in one.
  absl::Status Finish() override;

  // True once NewExecution() returned false because nothing is left.
  bool exhausted() const { return exhausted_; }
  // Whether the preemption bound (or max_depth) excluded any option so far
  // (in the last round, for iterative bounding).
  bool bound_cut() const { return root_cut_ || (split_tree_ && split_tree_->cut()); }
  // The bound of the round in progress (iterative bounding), else the bound.
  int current_bound() const { return bound_; }
  const Stats& stats() const { return stats_; }
  std::uint64_t executions() const { return stats_.executions; }
  // "dpor + sleep sets", "sleep sets" or "none".
  const char* reduction() const;
  // An engine divergence (the same answers gave different scheduling points).
  const absl::Status& status() const { return status_; }
  // The schedule of the execution in progress (or just finished): answers at
  // points with two or more candidates, and numbers.
  const std::vector<std::uint64_t>& choices() const { return choices_; }
  // Split search: the top options claimed so far, by every worker.
  // A sharded search: the units numbered so far (every shard's).
  std::uint64_t units() const {
    if (shard_plan_) return next_unit_;
    return split_tree_ ? split_tree_->claims() : 0;
  }
  // A progress estimate: the share of the tree explored, from the position
  // of each node's chosen option among the options it has scheduled so far
  // (DPOR schedules more as it goes, so early figures are high), and the
  // depth of the stack.
  double EstimatedFraction() const;
  std::size_t frontier_depth() const { return stack_.size(); }
  // Scheduling points seen in the execution in progress, single-candidate
  // ones included. A caller can compare it with the engine's step count: an
  // engine that does not honour ObservesEveryStep() makes DPOR unsound, and
  // the caller must then use sleep sets alone (Options::dpor = false).
  std::uint64_t points_seen() const { return points_seen_; }

 private:
  using Candidates = absl::InlinedVector<Candidate, 4>;
  struct Node {
    bool is_actor = false;
    int current = -1;           // actor nodes: index of the current actor
    std::uint32_t options = 0;  // runnable actors or numbers
    std::uint32_t chosen = 0;
    std::uint32_t preemptions_before = 0;
    bool cut_here = false;   // an option here was excluded by the bound
    bool child_cut = false;  // the chosen option's subtree had a cut
    bool any_cut = false;    // some finished option's subtree had a cut
    Candidates runnable;     // actor nodes
    Candidates sleep;        // asleep on entry (actor, its next step)
    Candidates done;         // finished options with uncut subtrees
    // Per option: kTried (explored or ruled out), kBacktrack (to explore).
    // At a top node of a split search only what SplitTree publishes.
    absl::InlinedVector<std::uint8_t, 8> flags;
    // Split search: the shared node; whether this worker claimed the
    // chosen option there (else another did, on the path to its claim);
    // whether flags gained what the tree has not seen.
    SplitTree::Node* top = nullptr;
    bool claim_owned = false;
    bool dirty = false;
    // Sharded search: a node of the top (which every shard walks), and
    // whether the chosen option there is explored privately (kEscaped).
    bool shard_top = false;
    bool chosen_private = false;
  };
  static constexpr std::uint8_t kTried = 1;
  static constexpr std::uint8_t kBacktrack = SplitTree::kBacktrack;
  // The option's step may have been the last of an execution (see
  // NewExecution): it then never sleeps.
  static constexpr std::uint8_t kMayEnd = SplitTree::kMayEnd;
  // Sharded search, at a top node: scheduled by a race only this shard saw
  // (in its own unit, or in what it explores privately), and explored here.
  static constexpr std::uint8_t kEscaped = 16;
  static constexpr std::uint8_t kTriedPrivate = 32;

  std::uint32_t OptionAt(const Node& node, std::uint32_t rank) const;
  // Moves `node` to its first untried eligible option in exploration order;
  // false if none is left.
  bool Advance(Node& node);
  // Chooses the first option of a node met for the first time: Advance,
  // or at a top node of a split search the tree's claim (or the replayed
  // path's option). False if none can be taken (every one asleep).
  bool ChooseFirst(Node& node);
  // The options a new node schedules: its first awake one with DPOR, else all.
  void ScheduleFirst(Node& node) const;
  bool ChooseFirstAtTop(Node& node);
  // Split search, after an execution: tells the tree what this worker
  // learnt at the top nodes.
  void PublishTop();
  // Split search, with nothing left on this worker's path: a claim from the
  // tree to replay. False if none (exhausted, cancelled, or none yet).
  bool TakeWork();
  // DPOR: for a race between recorded step `step` and a step of `actor`
  // touching `next`, makes sure the node of `step` will try an actor that
  // reverses it.
  // `end`: see HappensBefore::Initials.
  void AddBacktrack(std::size_t step, ActorId actor, const Footprint& next,
                    std::size_t end = SIZE_MAX);
  void CheckRaces(ActorId actor, const Footprint& next);
  // The pending steps of actors offered but not run since: at the end.
  void CheckPending();
  // At the end: the last step counts as global (see the header comment).
  void CheckLastStep();
  void NoteRunnable(const SchedulingPoint& point);
  void RecordStep(const Candidate& taken, std::size_t node_index);
  bool Asleep(const Node& node, std::uint32_t index) const;
  Candidates SleepFor(const Candidates& runnable) const;
  // The answer when not branching (redundant tail, past max_depth).
  static std::uint64_t DefaultActor(const SchedulingPoint& point);
  void MarkCutAbove();
  // After an execution: its races at the end, what it showed at the top.
  // False on a divergence.
  bool CloseExecution();
  // Finishes the deepest node's option and moves to the next eligible one,
  // popping nodes (and ending claims) that have none left. False if none is
  // left on this worker's path.
  bool Backtrack();
  // Suspend's text of the stack, and its reading (InvalidArgument when the
  // text does not fit the tree it resumes in).
  std::string SaveStack() const;
  absl::Status RestoreStack(absl::string_view text);
  void Diverged(const std::string& what);
  void StartRound();

  Options options_;
  int bound_;
  Stats stats_;
  std::vector<Node> stack_;
  std::size_t position_ = 0;         // next stack entry this execution
  std::size_t last_actor_node_ = 0;  // stack index, valid if have_actor_node_
  bool have_actor_node_ = false;
  // The latest step seen ends the process at rest (kEndsAtRest): if it is
  // the execution's last, that end cut nothing short.
  bool ended_at_rest_ = false;
  std::uint32_t preemptions_ = 0;  // so far in this execution
  bool off_tree_ = false;          // answering defaults for the rest of the execution
  // The stack came from a checkpoint and has not replayed one execution yet:
  // a divergence now is the file's (damaged, or of another build), not the
  // program's.
  bool restored_unproven_ = false;
  bool started_ = false;
  bool exhausted_ = false;
  bool root_cut_ = false;
  absl::Status status_;
  std::vector<std::uint64_t> choices_;
  std::uint64_t points_seen_ = 0;
  // DPOR state of the execution in progress.
  bool dpor_ = false;
  HappensBefore happens_before_;
  std::vector<std::uint32_t> step_node_;  // step index -> stack index
  std::size_t kept_steps_ = 0;            // recorded before this execution started
  std::size_t steps_taken_ = 0;           // in this execution
  std::size_t fresh_from_ = 0;            // stack index of the latest branching
  struct Pending {
    bool valid = false;
    Footprint next;
  };
  std::vector<Pending> pending_;  // by actor: runnable, not yet run since
  // Split search.
  void AtChoice();  // after each entry of choices_
  std::shared_ptr<SplitTree> split_tree_;
  bool crossed_split_ = false;           // this execution's choices reached split_choices
  std::vector<SplitTree::Step> forced_;  // the claim's path, replayed first
  bool root_token_ = false;              // claimed the root's opening, not yet opened
  bool idle_ = false;                    // waiting for work (a tree that does not block)
  bool execution_open_ = false;          // started, not yet closed
  bool awaiting_backtrack_ = false;      // closed, not yet backtracked
  bool suspended_ = false;
  // Sharded search.
  enum class Top {
    kOpen,     // this execution is still in the top
    kBlocked,  // every option asleep in the top: redundant
    kWalk,     // the first execution of another shard's unit (or a finished one)
    kUnit,     // it is in this shard's unit `unit_`
    kPrivate,  // below a top option this shard explores privately
  };
  // Whether every shard runs this execution alike (so what its races
  // schedule in the top is every shard's).
  bool SharedExecution() const;
  // The options chosen at the nodes before stack index `node_index`: a top
  // node's name in a shard's progress (ShardProgress::Escape::path).
  std::vector<std::uint32_t> PathTo(std::size_t node_index) const;
  // At an actor point: whether the top ends here, and whose unit follows.
  void EnterUnit();
  // After an execution: counts a unit that ended within the top.
  void CloseTop();
  // A stopped shard's stack and its place in the walk (ShardProgress::
  // stack), and their reading (InvalidArgument when the text does not fit).
  std::string SaveShardStack() const;
  absl::Status RestoreShardStack(absl::string_view text);
  std::shared_ptr<ShardPlan> shard_plan_;
  Top top_ = Top::kOpen;
  std::size_t top_branchings_ = 0;  // this execution's choices so far, in the top
  std::uint64_t next_unit_ = 0;     // units numbered so far
  bool in_unit_ = false;            // exploring unit_ below stack index unit_node_
  std::uint64_t unit_ = 0;
  std::size_t unit_node_ = 0;
  bool unit_first_execution_ = false;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_DFS_STRATEGY_H_
