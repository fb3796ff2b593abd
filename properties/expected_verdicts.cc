#include "properties/expected_verdicts.h"

namespace stackcheck::properties {

absl::string_view ExpectationName(Expectation e) {
  switch (e) {
    case Expectation::kHolds: return "holds";
    case Expectation::kViolated: return "violated";
    case Expectation::kAcceptedDeviation: return "accepted-deviation";
    case Expectation::kViolatedRarely: return "violated-rarely";
  }
  return "?";
}

const std::vector<ExpectedRow>& ExpectedRows() {
  // The issue expected v0-nocache, v2-gcc11 and event-fence to hold every
  // safety property. Exploration says otherwise, and the testbed's verdict
  // stands; each such row says why ("found:").
  static const auto* const rows = new std::vector<ExpectedRow>{
      // V0: no cache, no lock, so regions of several threads overlap.
      {"v0-nocache", "no-leak", Expectation::kViolated,
       "found: a fatal error on one thread (OOM) exits and closes the device while "
       "another thread's region still holds its block"},
      {"v0-nocache", "abort-attribution", Expectation::kViolated,
       "found: with several threads, another thread's driver call meets the sticky "
       "error first and reports the abort against no region"},
      // V1a: run keeps the stacks lock while the kernel runs; the callback unlocks.
      {"v1a-callback-unlock", "no-use-after-free", Expectation::kViolated,
       "found: with cuMemFree not waiting (SEM-11's documented mode), close frees the "
       "cached block while the last kernel is still queued"},
      {"v1a-callback-unlock", "no-leak", Expectation::kViolated,
       "found: a fatal exit while a block is in flight leaves it unfreed at close"},
      {"v1a-callback-unlock", "no-driver-call-in-callback", Expectation::kViolated,
       "found: the callback reports the abort as fatal; exit handlers then close the "
       "device from the callback thread"},
      {"v1a-callback-unlock", "mutex-discipline", Expectation::kViolated,
       "the stream callback unlocks a mutex the launching thread owns"},
      {"v1a-callback-unlock", "abort-attribution", Expectation::kViolated,
       "the abort surfaces in the callback or a later call, not in the region that aborted"},
      {"v1a-callback-unlock", "bounded-cache", Expectation::kViolated,
       "V1 never frees the cached block before close: no soft limit"},
      {"v1a-callback-unlock", "sync-completion", Expectation::kAcceptedDeviation,
       "run returns before its kernel completes, by design"},
      // V1b: the callback takes the lock to mark the block free.
      {"v1b-callback-lock", "no-use-after-free", Expectation::kViolated,
       "found: with cuMemFree not waiting (SEM-11's documented mode), close frees the "
       "cached block while the last kernel is still queued"},
      {"v1b-callback-lock", "no-leak", Expectation::kViolated,
       "found: a fatal exit while a block is in flight leaves it unfreed at close"},
      {"v1b-callback-lock", "no-driver-call-in-callback", Expectation::kViolated,
       "found: the callback reports the abort as fatal; exit handlers then close the "
       "device from the callback thread"},
      {"v1b-callback-lock", "no-deadlock", Expectation::kViolated,
       "a run that grows the block holds the lock in cuMemFree/cuCtxSynchronize, "
       "which waits for the callback, which waits for the lock"},
      {"v1b-callback-lock", "abort-attribution", Expectation::kViolated,
       "nothing synchronises after the launch, so the abort is reported by a later call or lost"},
      {"v1b-callback-lock", "bounded-cache", Expectation::kViolated,
       "V1 never frees the cached block before close: no soft limit"},
      {"v1b-callback-lock", "sync-completion", Expectation::kAcceptedDeviation,
       "run returns before its kernel completes, by design"},
      // V2 (GCC 11).
      {"v2-gcc11", "mutex-discipline", Expectation::kViolated,
       "found: a fatal error raised with the stacks lock held exits, and close destroys "
       "the locked mutex (the 'UB on exit path' of the reference table)"},
      {"v2-gcc11", "no-leak", Expectation::kViolatedRarely,
       "found (~1 in 10^4 executions): a fatal error on one thread (an injected OOM) "
       "exits and closes the device while another thread's region holds its block"},
      {"v2-gcc11", "no-use-after-free", Expectation::kViolatedRarely,
       "found (~1 in 3x10^5 executions): with cuMemFree not waiting (SEM-11's "
       "documented mode), a fatal OOM on one thread exits and close frees the cached "
       "block while another thread's kernel is still queued or running on it (the "
       "H200's cuMemFree waits for the kernel)"},
      {"v2-gcc11", "abort-attribution", Expectation::kViolated,
       "found: with several threads, another thread's driver call meets the sticky "
       "error first and reports the abort against no region"},
      {"v2-gcc11", "bounded-cache", Expectation::kViolated,
       "found: the soft limit is lazy; a region finishing on another thread during "
       "device_alloc leaves a block above the soft limit cached"},
      // V3 (trunk): B1, fatal -> exit -> close -> destructor kernel -> stacks lock
      // held by the same thread since the fatal error in run.
      {"v3-trunk", "no-deadlock", Expectation::kViolated,
       "B1: an aborting region with device destructors hangs at exit on the stacks lock"},
      {"v3-trunk", "mutex-discipline", Expectation::kViolated,
       "found: as V2, a fatal error raised with the stacks lock held exits and close "
       "destroys the locked mutex"},
      {"v3-trunk", "no-leak", Expectation::kViolatedRarely,
       "found (~1 in 5x10^4 executions): as V2, a fatal exit while another thread's "
       "region holds its block"},
      {"v3-trunk", "no-use-after-free", Expectation::kViolatedRarely,
       "found (~1 in 3x10^5 executions): as V2, close after a fatal OOM frees the "
       "cached block under another thread's kernel when cuMemFree does not wait"},
      {"v3-trunk", "abort-attribution", Expectation::kViolated,
       "found: as V2, another thread meets the sticky error first"},
      {"v3-trunk", "bounded-cache", Expectation::kViolated,
       "found: as V2, the soft limit is lazy under concurrent regions"},
      // The new policy does not wait for its kernel: that is where its speed is.
      {"event-fence", "sync-completion", Expectation::kAcceptedDeviation,
       "run returns once the kernel is enqueued, before it completes"},
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
    case Expectation::kViolatedRarely: return true;
  }
  return false;
}

}  // namespace stackcheck::properties
