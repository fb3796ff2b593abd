// Depth-first enumeration of a real program's schedules, one process per
// execution. The simulator runs in the program's process, so its in-process
// DFS cannot carry state from one execution to the next; this walks the tree
// from the outside instead: each execution replays a prefix of answers
// (SequenceStrategy's form: 0 = let the running thread go on) and continues
// without preemptions, and what it reports about every point it met (how
// many answers there were, whether a non-zero answer preempts) extends the
// tree. Plain DFS under a preemption bound: no reduction, so it is feasible
// for small programs and small bounds, and complete for them.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_SCHEDULE_TREE_H_
#define STACKCHECK_PROPERTIES_PROGRAM_SCHEDULE_TREE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"

namespace stackcheck::properties {

// One point where an execution asked the strategy for an answer.
struct SchedulePoint {
  std::uint64_t width = 0;  // answers there were: 0 .. width-1
  bool preempts = false;    // a non-zero answer makes a runnable thread wait
};

class ScheduleTree {
 public:
  // preemption_bound < 0: none.
  explicit ScheduleTree(int preemption_bound) : bound_(preemption_bound) {}

  // The answers to replay for the next execution (the rest are 0), or
  // nullopt when every schedule within the bound has been run.
  std::optional<std::vector<std::uint64_t>> Next();

  // What the execution of the last Next() answered and met at each point.
  // An execution that meets different points on the replayed prefix than
  // the one it extends is nondeterministic: the error names the point.
  absl::Status Record(const std::vector<std::uint64_t>& answers,
                      const std::vector<SchedulePoint>& points);

  // Whether the bound left out some schedule.
  bool bound_cut() const { return bound_cut_; }
  std::uint64_t executions() const { return executions_; }

 private:
  struct Step {
    std::uint64_t answer;
    SchedulePoint point;
  };
  int bound_;
  std::vector<Step> path_;           // the last execution, point by point
  std::vector<std::uint64_t> next_;  // the prefix Next() returned last
  bool started_ = false;
  bool bound_cut_ = false;
  std::uint64_t executions_ = 0;
};

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_SCHEDULE_TREE_H_
