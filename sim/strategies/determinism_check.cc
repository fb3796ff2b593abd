#include "sim/strategies/determinism_check.h"

#include <string>

#include "absl/strings/str_format.h"

namespace stackcheck::sim {

DeterminismCheck::DeterminismCheck(Strategy& inner, const Options& options)
    : inner_(inner), options_(options) {}

bool DeterminismCheck::NewExecution() {
  if (!status_.ok()) return false;
  if (rerun_pending_) {
    rerun_pending_ = false;
    rerun_ = true;
    position_ = 0;
    ++reruns_;
    return true;
  }
  rerun_ = false;
  if (!inner_.NewExecution()) return false;
  ++execution_;
  recorded_.clear();
  recording_ = WillRerun();
  return true;
}

void DeterminismCheck::Fail(const std::string& what) {
  if (!status_.ok()) return;
  status_ = absl::InternalError(
      absl::StrFormat("execution %d is not deterministic: its re-run with the same %d choices "
                      "%s",
                      execution_, recorded_.size(), what));
}

std::uint64_t DeterminismCheck::Replay(std::uint64_t n, const char* what) {
  if (position_ >= recorded_.size()) {
    Fail(absl::StrFormat("asked for more choices (step %d, among %d %s)", position_, n, what));
    return 0;
  }
  const std::uint64_t value = recorded_[position_];
  if (value >= n) {
    Fail(
        absl::StrFormat("offered only %d %s at step %d, where the first run "
                        "chose %d",
                        n, what, position_, value));
    return 0;
  }
  ++position_;
  return value;
}

std::size_t DeterminismCheck::NextActor(const SchedulingPoint& point) {
  if (rerun_) {
    return static_cast<std::size_t>(Replay(point.runnable.size(), "runnable actors"));
  }
  const std::size_t chosen = inner_.NextActor(point);
  if (recording_) recorded_.push_back(chosen);
  return chosen;
}

std::uint64_t DeterminismCheck::NextNumber(std::uint64_t n) {
  if (rerun_) return Replay(n, "numbers");
  const std::uint64_t chosen = inner_.NextNumber(n);
  if (recording_) recorded_.push_back(chosen);
  return chosen;
}

void DeterminismCheck::ReportDigest(std::uint64_t digest) {
  if (rerun_) {
    if (!status_.ok()) return;
    if (position_ != recorded_.size()) {
      Fail(absl::StrFormat("ended after %d of them", position_));
    } else if (digest != digest_) {
      Fail(absl::StrFormat("gave digest %016x, the first run %016x", digest, digest_));
    }
    return;
  }
  digest_ = digest;
  rerun_pending_ = WillRerun();
}

}  // namespace stackcheck::sim
