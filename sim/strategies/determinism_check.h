// Wraps a strategy and checks that the engine is deterministic: after some
// executions it serves the very same answers again on the next execution, and
// the caller's digests of the two runs must match.
//
// The caller's loop:
//
//   DeterminismCheck check(inner, {/*check_every=*/10});
//   while (check.NewExecution()) {
//     ExecutionResult r = simulator.Run(check, main_thread);
//     check.ReportDigest(r.digest);
//     if (!check.status().ok()) break;      // names the execution
//     if (check.is_rerun()) continue;       // not a new execution: skip it
//     ... judge r ...
//   }
//
// Re-runs never reach the inner strategy, so its search is unaffected.
#ifndef STACKCHECK_SIM_STRATEGIES_DETERMINISM_CHECK_H_
#define STACKCHECK_SIM_STRATEGIES_DETERMINISM_CHECK_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class DeterminismCheck : public Strategy {
 public:
  struct Options {
    // Re-run executions 1, 1 + k, 1 + 2k, ... (1-based); 0: never, 1: all.
    std::uint64_t check_every = 10;
  };

  // `inner` must outlive this wrapper.
  DeterminismCheck(Strategy& inner, const Options& options);

  bool NewExecution() override;
  std::size_t NextActor(const SchedulingPoint& point) override;
  std::uint64_t NextNumber(std::uint64_t n) override;
  bool ObservesEveryStep() const override { return inner_.ObservesEveryStep(); }
  SearchState State(bool estimate) const override { return inner_.State(estimate); }
  absl::Status Finish() override { return inner_.Finish(); }
  void Suspend() override { inner_.Suspend(); }

  // Call once after every execution (first runs and re-runs alike).
  void ReportDigest(std::uint64_t digest);

  // True while the execution in progress repeats the previous one.
  bool is_rerun() const { return rerun_; }
  // 1-based index of the inner strategy's execution in progress.
  std::uint64_t execution() const { return execution_; }
  std::uint64_t reruns() const { return reruns_; }
  // Not OK once a re-run diverged; the message names the execution.
  const absl::Status& status() const { return status_; }

 private:
  // Whether the execution in progress (a first run) is re-run after it.
  bool WillRerun() const {
    return options_.check_every != 0 && (execution_ - 1) % options_.check_every == 0;
  }
  std::uint64_t Replay(std::uint64_t n, const char* what);
  void Fail(const std::string& what);

  Strategy& inner_;
  Options options_;
  std::uint64_t execution_ = 0;
  std::uint64_t reruns_ = 0;
  bool rerun_ = false;
  bool rerun_pending_ = false;
  bool recording_ = false;               // the first run in progress: WillRerun()
  std::vector<std::uint64_t> recorded_;  // answers of the last first run that is re-run
  std::size_t position_ = 0;             // in recorded_, during a re-run
  std::uint64_t digest_ = 0;             // of the last first run
  absl::Status status_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_DETERMINISM_CHECK_H_
