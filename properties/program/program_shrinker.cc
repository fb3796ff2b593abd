#include "properties/program/program_shrinker.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "properties/program/program_finding.h"

namespace stackcheck::properties {
namespace {

class Shrinking {
 public:
  Shrinking(const ProgramUnderTest& program, const RunOutcome& found, int budget)
      : program_(program), target_(ViolationOf(found)), budget_(budget) {
    result_.smallest = found;
  }

  // Runs `sequence` under `faults`; keeps it when it shows the same bug with
  // no more preemptions than the smallest so far.
  bool Try(const std::vector<std::uint64_t>& sequence, const program::FaultPlan& faults) {
    if (budget_ <= 0) return false;
    --budget_;
    ++result_.executions;
    RunSettings s;
    s.strategy = "sequence";
    s.schedule = sequence;
    s.faults = faults;
    absl::StatusOr<RunOutcome> o = RunOnce(program_, s);
    if (o.ok() && o->kind == RunOutcome::Kind::kStopped) {
      budget_ = 0;  // a signal or the budget: keep what is shrunk so far
      result_.stopped = true;
      return false;
    }
    if (!o.ok() || !Violated(*o) || !SameBug(ViolationOf(*o), target_)) return false;
    if (o->report.preemptions > result_.smallest.report.preemptions) return false;
    result_.smallest = *std::move(o);
    return true;
  }

  bool budget_left() const { return budget_ > 0; }
  ProgramShrinkResult& result() { return result_; }

 private:
  const ProgramUnderTest& program_;
  const sim::Violation target_;
  int budget_;
  ProgramShrinkResult result_;
};

}  // namespace

ProgramShrinkResult ShrinkProgramRun(const ProgramUnderTest& program, const RunOutcome& found,
                                     const program::FaultPlan& faults, int budget) {
  Shrinking shrinking(program, found, budget);
  shrinking.result().faults = faults;
  if (found.kind != RunOutcome::Kind::kFinished) return std::move(shrinking.result());
  std::vector<std::uint64_t> seq = found.report.sequence;
  // Shortest prefix (binary search; a shorter prefix that still shows the
  // finding is kept whatever lies between).
  std::size_t lo = 0, hi = seq.size();
  while (lo < hi && shrinking.budget_left()) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (shrinking.Try({seq.begin(), seq.begin() + mid}, faults)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  seq.resize(hi);
  for (std::size_t i = seq.size(); i-- > 0 && shrinking.budget_left();) {
    if (seq[i] == 0) continue;
    std::vector<std::uint64_t> fewer = seq;
    fewer[i] = 0;
    if (shrinking.Try(fewer, faults)) seq = fewer;
  }
  if (!faults.empty() && shrinking.Try(seq, program::FaultPlan{})) {
    shrinking.result().faults = program::FaultPlan{};
  }
  return std::move(shrinking.result());
}

}  // namespace stackcheck::properties
