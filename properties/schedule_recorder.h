// Records any strategy's answers as the values SequenceStrategy takes, so that
// an execution found by random or PCT exploration becomes a Case schedule: it
// replays exactly through SequenceStrategy and shrinks like a generated one.
//
// An actor choice is stored relative to the current actor ((chosen - current)
// mod n, so 0 = no preemption), a number choice as itself; this is the inverse
// of SequenceStrategy's mapping. Points with a single candidate are asked
// only of strategies that observe every step (DPOR); they are no choice and
// are not recorded, so the schedule replays under any strategy.
#ifndef STACKCHECK_PROPERTIES_SCHEDULE_RECORDER_H_
#define STACKCHECK_PROPERTIES_SCHEDULE_RECORDER_H_

#include <cstdint>
#include <vector>

#include "sim/strategy.h"

namespace stackcheck::properties {

class ScheduleRecorder : public sim::Strategy {
 public:
  // `inner` must outlive the recorder.
  explicit ScheduleRecorder(sim::Strategy& inner) : inner_(inner) {}

  bool NewExecution() override;
  std::size_t NextActor(const sim::SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;
  bool ObservesEveryStep() const override { return inner_.ObservesEveryStep(); }
  sim::SearchState State(bool estimate) const override { return inner_.State(estimate); }
  absl::Status Finish() override { return inner_.Finish(); }
  void Suspend() override { inner_.Suspend(); }

  // The execution in progress (or the last one), without trailing zeros: they
  // are SequenceStrategy's defaults once its values run out.
  std::vector<std::uint64_t> Schedule() const;

 private:
  sim::Strategy& inner_;
  std::vector<std::uint64_t> values_;
};

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SCHEDULE_RECORDER_H_
