// Reduces a failing Case to a small one that still violates the same property:
// fewer threads, regions and faults, default modes, fewer preemptions.
//
// Greedy and deterministic: candidates are tried in a fixed order, most
// aggressive first (drop a thread, drop an op, drop a fault, simplify a region,
// shorten and zero the schedule); the first that still fails becomes the new
// case, with its schedule normalised to what the execution consumed. It stops
// at a fixpoint or when the budget is spent. Used for failures found by random
// and PCT exploration, whose schedules are not RapidCheck shrink trees.
#ifndef STACKCHECK_PROPERTIES_SHRINKER_H_
#define STACKCHECK_PROPERTIES_SHRINKER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "properties/explore.h"

namespace stackcheck::properties {

struct ShrinkOptions {
  int max_executions = 3000;
  // Wall-clock cap; shrinking is deterministic only while within it.
  absl::Duration time_limit = absl::Seconds(20);
  // Dropping a thread or an op renumbers actors and scheduling points, so the
  // old schedule rarely fits the smaller scenario. When the old schedule does
  // not reproduce the violation, this many seeded random / PCT schedules are
  // tried on the smaller scenario before giving it up.
  int research_attempts = 16;
  // When set and it becomes true, shrinking stops with what it has.
  const std::atomic<bool>* stop = nullptr;
  // Non-empty: a candidate must show this fingerprint, with the policy's known
  // bugs passed (ExecuteOptions::pass_known), so a NEW bug is not shrunk
  // into the known one beside it.
  std::string fingerprint;
};

struct ShrinkResult {
  Case smallest;
  Execution execution;  // of `smallest`, violating the property
  int executions = 0;   // candidates tried
  int accepted = 0;     // candidates that still failed
  bool budget_spent = false;
  // The time limit, not the execution count, ended it: the result depends on
  // the machine's speed.
  bool timed_out = false;
  // `stop` ended it.
  bool stopped = false;
};

// The candidates one shrink step tries for `c`, in order.
std::vector<Case> ShrinkCandidates(const Case& c);

// `failing` must violate `property` when replayed (its schedule through the
// sequence strategy); otherwise FailedPrecondition. Deterministic: the same
// input, options and engine give the same result (within the time limit).
absl::StatusOr<ShrinkResult> Shrink(const Case& failing, const PolicyInfo& policy,
                                    const PropertyInfo& property,
                                    const ShrinkOptions& options = {});

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SHRINKER_H_
