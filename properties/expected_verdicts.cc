#include "properties/expected_verdicts.h"

namespace stackcheck::properties {

absl::string_view ExpectationName(Expectation e) {
  switch (e) {
    case Expectation::kHolds: return "holds";
    case Expectation::kViolated: return "violated";
    case Expectation::kAcceptedDeviation: return "accepted-deviation";
  }
  return "?";
}

const std::vector<ExpectedRow>& ExpectedRows() {
  // v0-nocache, v2-gcc11 and the event-fence policy hold every safety property.
  static const auto* const rows = new std::vector<ExpectedRow>{
      // V1a: run keeps the stacks lock while the kernel runs; the callback unlocks.
      {"v1a-callback-unlock", "mutex-discipline", Expectation::kViolated,
       "the stream callback unlocks a mutex the launching thread owns"},
      {"v1a-callback-unlock", "abort-attribution", Expectation::kViolated,
       "the abort surfaces in the callback or a later call, not in the region that aborted"},
      {"v1a-callback-unlock", "bounded-cache", Expectation::kViolated,
       "V1 never frees the cached block before close: no soft limit"},
      {"v1a-callback-unlock", "sync-completion", Expectation::kAcceptedDeviation,
       "run returns before its kernel completes, by design"},
      // V1b: the callback takes the lock to mark the block free.
      {"v1b-callback-lock", "no-deadlock", Expectation::kViolated,
       "a run that grows the block holds the lock in cuMemFree/cuCtxSynchronize, "
       "which waits for the callback, which waits for the lock"},
      {"v1b-callback-lock", "abort-attribution", Expectation::kViolated,
       "nothing synchronises after the launch, so the abort is reported by a later call"},
      {"v1b-callback-lock", "bounded-cache", Expectation::kViolated,
       "V1 never frees the cached block before close: no soft limit"},
      {"v1b-callback-lock", "sync-completion", Expectation::kAcceptedDeviation,
       "run returns before its kernel completes, by design"},
      // V3: B1, fatal -> exit -> close -> destructor kernel -> stacks lock held by
      // the same thread since the fatal error in run.
      {"v3-trunk", "no-deadlock", Expectation::kViolated,
       "B1: an aborting region with device destructors hangs at exit on the stacks lock"},
      // The new policy fences each launch with an event instead of synchronising.
      {"event-fence", "sync-completion", Expectation::kAcceptedDeviation,
       "run returns after recording the fence event, before the kernel completes"},
  };
  return *rows;
}

namespace {

const ExpectedRow* FindRow(absl::string_view policy, absl::string_view property) {
  for (const ExpectedRow& row : ExpectedRows()) {
    if (row.policy == policy && row.property == property) return &row;
  }
  return nullptr;
}

}  // namespace

Expectation ExpectedVerdict(absl::string_view policy, absl::string_view property) {
  const ExpectedRow* row = FindRow(policy, property);
  return row == nullptr ? Expectation::kHolds : row->expectation;
}

absl::string_view ExpectedWhy(absl::string_view policy, absl::string_view property) {
  const ExpectedRow* row = FindRow(policy, property);
  return row == nullptr ? absl::string_view() : row->why;
}

bool VerdictMatches(Expectation expected, bool violated) {
  switch (expected) {
    case Expectation::kHolds: return !violated;
    case Expectation::kViolated: return violated;
    case Expectation::kAcceptedDeviation: return true;
  }
  return false;
}

}  // namespace stackcheck::properties
