#include "properties/campaign_shrink.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/version.h"
#include "properties/replay_file.h"
#include "properties/shrinker.h"
#include "properties/worker_pool.h"

namespace stackcheck::properties {
namespace {

// `test_case` violating `property` under `policy`, as this tool writes it.
ReplayRecord RecordOf(const PolicyInfo& policy, const PropertyInfo& property,
                      const Case& test_case) {
  ReplayRecord record;
  record.tool_version = kVersion;
  record.policy = policy.name;
  record.property = std::string(property.name);
  record.test_case = test_case;
  return record;
}

ShrinkOptions ShrinkOptionsFor(const PolicyTurn& turn) {
  ShrinkOptions so = turn.options.shrink;
  so.stop = turn.options.stop;
  if (turn.options.executions > 0) {
    // Bounded by its execution count; the budget only caps it, and a
    // shrink the cap cuts short is reported.
    so.time_limit = std::max(absl::ZeroDuration(), turn.campaign_end - absl::Now());
  } else {
    // At least a moment to shrink, even when exploration used the slice up.
    so.time_limit =
        std::min(so.time_limit, std::max(absl::Milliseconds(250), turn.policy_end - absl::Now()));
  }
  return so;
}

// Shortfall lines, which the shrinking jobs add at once.
struct SharedShortfalls {
  explicit SharedShortfalls(std::vector<std::string>& into) : lines(into) {}

  std::vector<std::string>& lines;
  std::mutex mu;
};

// An interrupted campaign keeps the violation as found, with its token.
void KeepAsFound(const PolicyInfo& policy, PropertyVerdict& v) {
  v.counterexample = v.original;
  v.token = EncodeReplayToken(RecordOf(policy, *v.property, v.original));
}

// Shrinks `v`'s violation to its counterexample, with its token and replay
// file; a found case that does not violate again is kept, marked so.
absl::Status ShrinkViolation(const PolicyTurn& turn, PropertyVerdict& v,
                             SharedShortfalls& shortfalls) {
  const PolicyInfo& policy = turn.policy;
  absl::StatusOr<ShrinkResult> s = Shrink(v.original, policy, *v.property, ShrinkOptionsFor(turn));
  if (!s.ok() && s.status().code() == absl::StatusCode::kFailedPrecondition) {
    v.reproducible = false;
    v.counterexample = v.original;
    return absl::OkStatus();
  }
  if (!s.ok()) return s.status();
  v.counterexample = s->smallest;
  v.shrunk = true;
  v.message = s->execution.violation->message;
  v.shrink_executions = s->executions;
  if (turn.options.executions > 0 && (s->timed_out || s->stopped)) {
    std::lock_guard<std::mutex> lock(shortfalls.mu);
    shortfalls.lines.push_back(absl::StrFormat(
        "%s / %s: shrinking stopped by %s after %d executions", policy.name, v.property->name,
        s->stopped ? "a signal" : "the time budget", s->executions));
  }
  ReplayRecord record = RecordOf(policy, *v.property, v.counterexample);
  record.digest = s->execution.digest;
  record.fingerprint = s->execution.violation->fingerprint;
  v.token = EncodeReplayToken(record);
  if (turn.options.replay_dir.empty()) return absl::OkStatus();
  v.replay_path =
      absl::StrCat(turn.options.replay_dir, "/", policy.name, ".", v.property->name, ".replay");
  return WriteReplayFile(v.replay_path, record);
}

absl::Status ShrinkViolations(const PolicyTurn& turn, bool interrupted, PolicyResult& pr,
                              std::vector<std::string>& shortfall_lines) {
  std::vector<PropertyVerdict*> to_shrink;
  for (PropertyVerdict& v : pr.verdicts) {
    if (v.violated) to_shrink.push_back(&v);
  }
  std::atomic<size_t> next{0};
  SharedShortfalls shortfalls(shortfall_lines);
  std::vector<absl::Status> errors(turn.options.jobs);
  RunOnWorkers(turn.options.jobs, [&](int job) {
    for (size_t k = next++; k < to_shrink.size(); k = next++) {
      PropertyVerdict& v = *to_shrink[k];
      if (interrupted) {
        KeepAsFound(turn.policy, v);
        continue;
      }
      if (absl::Status s = ShrinkViolation(turn, v, shortfalls); !s.ok()) {
        errors[job] = s;
        return;
      }
    }
  });
  for (const absl::Status& s : errors) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Shrinks NEW fingerprint `f` of `v` to a case that shows it (unless
// `interrupted`), with its token and replay file: the policy's `number`th.
absl::Status ShrinkNewFingerprint(const PolicyTurn& turn, bool interrupted,
                                  const PropertyVerdict& v, FingerprintVerdict& f, size_t number) {
  ReplayRecord record = RecordOf(turn.policy, *v.property, f.original);
  record.fingerprint = f.fingerprint;
  if (!interrupted) {
    ShrinkOptions so = ShrinkOptionsFor(turn);
    so.fingerprint = f.fingerprint;
    absl::StatusOr<ShrinkResult> shrunk = Shrink(f.original, turn.policy, *v.property, so);
    if (!shrunk.ok() && shrunk.status().code() == absl::StatusCode::kFailedPrecondition) {
      f.reproducible = false;
    } else if (!shrunk.ok()) {
      return shrunk.status();
    } else {
      f.counterexample = shrunk->smallest;
      f.shrunk = true;
      f.message = shrunk->execution.violation->message;
      record.test_case = f.counterexample;
      record.digest = shrunk->execution.digest;
    }
  }
  f.token = EncodeReplayToken(record);
  if (turn.options.replay_dir.empty()) return absl::OkStatus();
  f.replay_path = absl::StrCat(turn.options.replay_dir, "/", turn.policy.name, ".",
                               v.property->name, ".new", number, ".replay");
  return WriteReplayFile(f.replay_path, record);
}

absl::Status ShrinkNewFingerprints(const PolicyTurn& turn, bool interrupted, PolicyResult& pr) {
  size_t number = 0;
  for (PropertyVerdict& v : pr.verdicts) {
    for (FingerprintVerdict& f : v.fingerprints) {
      if (f.known) continue;
      if (absl::Status s = ShrinkNewFingerprint(turn, interrupted, v, f, ++number); !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ShrinkFindings(const PolicyTurn& turn, bool interrupted, PolicyResult& pr,
                            std::vector<std::string>& shortfalls) {
  if (absl::Status s = ShrinkViolations(turn, interrupted, pr, shortfalls); !s.ok()) return s;
  return ShrinkNewFingerprints(turn, interrupted, pr);
}

}  // namespace stackcheck::properties
