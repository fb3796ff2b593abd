#include "properties/program/schedule_tree.h"

#include "absl/strings/str_format.h"

namespace stackcheck::properties {
namespace {
// Threads, or a small number's range: a wider point (a number drawn from a
// large range) would make the tree too wide to walk.
constexpr std::uint64_t kMaxWidth = 4096;
}  // namespace

std::optional<std::vector<std::uint64_t>> ScheduleTree::Next() {
  if (!started_) {
    started_ = true;
    next_.clear();
    return next_;
  }
  // Preemptions spent before each point of the last execution.
  std::vector<int> spent(path_.size() + 1, 0);
  for (std::size_t i = 0; i < path_.size(); ++i) {
    spent[i + 1] = spent[i] + (path_[i].point.preempts && path_[i].answer != 0 ? 1 : 0);
  }
  // The deepest point with an answer not yet taken that the bound allows;
  // answers are taken in increasing order, so the ones above are done.
  for (std::size_t i = path_.size(); i-- > 0;) {
    const Step& s = path_[i];
    if (s.answer + 1 >= s.point.width) continue;
    const int cost = spent[i] + (s.point.preempts ? 1 : 0);
    if (bound_ >= 0 && cost > bound_) {
      bound_cut_ = true;
      continue;
    }
    next_.clear();
    for (std::size_t j = 0; j < i; ++j) next_.push_back(path_[j].answer);
    next_.push_back(s.answer + 1);
    return next_;
  }
  return std::nullopt;
}

absl::Status ScheduleTree::Record(const std::vector<std::uint64_t>& answers,
                                  const std::vector<SchedulePoint>& points) {
  ++executions_;
  if (answers.size() != points.size()) {
    return absl::InternalError(absl::StrFormat("execution %d: %d answers for %d points",
                                               executions_, answers.size(), points.size()));
  }
  if (answers.size() < next_.size()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "execution %d ended after %d points, before the %d its schedule replays: the program "
        "is not deterministic under a fixed schedule",
        executions_, answers.size(), next_.size()));
  }
  for (std::size_t i = 0; i < next_.size(); ++i) {
    // The replayed prefix: the same answers at the same kind of points. The
    // last one was extended on purpose, so only its width is compared.
    const bool same_answer = answers[i] == next_[i];
    const bool same_point = i >= path_.size() || (points[i].width == path_[i].point.width &&
                                                  points[i].preempts == path_[i].point.preempts);
    if (!same_answer || !same_point) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "execution %d diverged from its replayed schedule at point %d (%d answers there, "
          "expected %d): the program is not deterministic under a fixed schedule",
          executions_, i, points[i].width, i < path_.size() ? path_[i].point.width : 0));
    }
  }
  for (std::size_t i = next_.size(); i < answers.size(); ++i) {
    if (answers[i] != 0) {
      return absl::InternalError(
          absl::StrFormat("execution %d answered %d past its replayed prefix at point %d",
                          executions_, answers[i], i));
    }
  }
  path_.clear();
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (points[i].width > kMaxWidth) {
      return absl::FailedPreconditionError(
          absl::StrFormat("execution %d: point %d offers %d answers, too many to enumerate",
                          executions_, i, points[i].width));
    }
    if (points[i].width == 0 || answers[i] >= points[i].width) {
      return absl::InternalError(absl::StrFormat("execution %d: answer %d at point %d of width %d",
                                                 executions_, answers[i], i, points[i].width));
    }
    path_.push_back(Step{answers[i], points[i]});
  }
  return absl::OkStatus();
}

}  // namespace stackcheck::properties
