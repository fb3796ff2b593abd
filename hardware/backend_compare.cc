#include "hardware/backend_compare.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::hardware {

absl::string_view RowStatusName(RowStatus status) {
  switch (status) {
    case RowStatus::kHoldsOnBoth:
      return "holds-on-both";
    case RowStatus::kConfirmed:
      return "confirmed";
    case RowStatus::kNotReached:
      return "not-reached";
    case RowStatus::kNotSteerable:
      return "not-steerable";
    case RowStatus::kNotObservable:
      return "not-observable";
    case RowStatus::kHardwareUnchecked:
      return "hardware-unchecked";
    case RowStatus::kHardwareOnly:
      return "mismatch-hardware-only";
    case RowStatus::kNotReproduced:
      return "mismatch-not-reproduced";
    case RowStatus::kUnavailable:
      return "unavailable";
  }
  return "?";
}

bool Disagrees(RowStatus status) {
  return status == RowStatus::kHardwareOnly || status == RowStatus::kNotReproduced ||
         status == RowStatus::kUnavailable;
}

namespace {

std::string SimViolated(const SimSide& sim) {
  return absl::StrCat("sim: VIOLATED, token ", sim.token);
}

std::string SteeredCount(const HwSide& hw) {
  return absl::StrFormat("steered %d of %d (%s)", hw.reproduced, hw.steered_runs, hw.steering);
}

}  // namespace

RowComparison CompareBackends(const SimSide& sim, const HwSide& hw) {
  RowComparison out;
  auto set = [&out](RowStatus status, std::string text) {
    out.status = status;
    out.text = std::move(text);
    return out;
  };
  if (!sim.error.empty()) {
    return set(RowStatus::kUnavailable, absl::StrCat("unavailable: sim: ", sim.error));
  }
  if (!hw.unavailable.empty()) {
    return set(RowStatus::kUnavailable, absl::StrCat("unavailable: cuda: ", hw.unavailable));
  }
  const bool hw_violated = hw.violated_runs > 0 || hw.reproduced > 0;
  if (!sim.checked) {
    if (hw_violated) {
      return set(RowStatus::kHardwareUnchecked,
                 absl::StrFormat("GPU only: violated in %d of %d runs (%s); the "
                                 "simulator has no checker for it",
                                 hw.violated_runs, hw.runs, hw.evidence));
    }
    return set(RowStatus::kHoldsOnBoth,
               absl::StrFormat("holds on the GPU over %d runs; the simulator has "
                               "no checker for it",
                               hw.runs));
  }
  if (!hw.observable) {
    if (sim.violated) {
      return set(RowStatus::kNotSteerable,
                 absl::StrCat("not reached (", SimViolated(sim),
                              "); not steerable: the GPU cannot observe it"));
    }
    return set(RowStatus::kNotObservable,
               absl::StrCat("holds on sim (", sim.search, "); the GPU cannot observe it"));
  }
  if (sim.violated && hw_violated) {
    std::string how = absl::StrFormat("free runs %d of %d", hw.violated_runs, hw.runs);
    if (hw.steered) absl::StrAppend(&how, ", ", SteeredCount(hw));
    return set(RowStatus::kConfirmed, absl::StrCat("confirmed on hardware (", how, ")"));
  }
  if (sim.violated) {
    if (!hw.not_steerable.empty()) {
      return set(RowStatus::kNotSteerable, absl::StrCat("not reached (", SimViolated(sim),
                                                        "); not steerable: ", hw.not_steerable));
    }
    if (!hw.steer_error.empty()) {
      return set(RowStatus::kUnavailable,
                 absl::StrCat("unavailable: steering failed: ", hw.steer_error, " (",
                              SimViolated(sim), ")"));
    }
    if (hw.steered && hw.steered_runs > 0 && !hw.approximate.empty()) {
      return set(RowStatus::kNotSteerable,
                 absl::StrCat("not reached (", SimViolated(sim), "); ", SteeredCount(hw),
                              ": the steering cannot force this schedule"));
    }
    if (hw.steered && hw.steered_runs > 0) {
      return set(RowStatus::kNotReproduced,
                 absl::StrCat("MISMATCH: the simulator's counterexample, ", SteeredCount(hw),
                              ", did not reproduce on the GPU (", SimViolated(sim), ")"));
    }
    return set(RowStatus::kNotReached, absl::StrCat("not reached (", SimViolated(sim), ")"));
  }
  if (hw_violated) {
    return set(RowStatus::kHardwareOnly,
               absl::StrFormat("MISMATCH: the GPU violated it in %d of %d runs (%s); "
                               "the simulator's search of this scenario (%s) found "
                               "no violation",
                               hw.violated_runs, hw.runs, hw.evidence, sim.search));
  }
  return set(RowStatus::kHoldsOnBoth,
             absl::StrFormat("holds on both (sim: %s; cuda: %d runs)", sim.search, hw.runs));
}

}  // namespace stackcheck::hardware
