// The judgement of `stackcheck validate --backend=cuda`: per policy, hardware
// scenario and property, what the simulator found beside what the GPU found,
// reduced to one RowStatus. The two backends are compared with each other,
// not with the expected-verdicts table: a handful of GPU runs cannot reach
// the rare interleavings the simulator explores, so "the GPU did not see it"
// is no disagreement; the GPU seeing what the simulator's search of the same
// scenario rules out, or a simulator counterexample that the GPU does not
// reproduce though the host can force its schedule, is.
#ifndef STACKCHECK_HARDWARE_BACKEND_COMPARE_H_
#define STACKCHECK_HARDWARE_BACKEND_COMPARE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace stackcheck::hardware {

// The simulator's side of one row.
struct SimSide {
  bool checked = true;  // false: the simulator has no checker for it
  std::string error;    // the search failed
  bool violated = false;
  std::string message;  // the violation
  std::string token;    // its replay token
  std::uint64_t executions = 0;
  bool exhaustive = false;  // every schedule covered for this property
  std::string search;       // how much exploration, e.g. "exhaustive DPOR, 12 executions"
};

// The GPU's side of one row.
struct HwSide {
  std::string unavailable;  // no run could be judged (setup failed)
  bool observable = true;   // false: the GPU cannot observe the property
  int runs = 0;             // free and jittered runs that judged it
  int violated_runs = 0;
  std::string evidence;  // of the first violating run
  // The simulator's counterexample steered onto the GPU.
  bool steered = false;       // steering was attempted
  std::string not_steerable;  // why not, when the host cannot force it
  std::string steering;       // the steering applied
  std::string approximate;    // why it cannot force the schedule, if so
  int steered_runs = 0;
  int reproduced = 0;
  std::string steer_error;  // the steered run could not be made
};

enum class RowStatus {
  kHoldsOnBoth,        // neither backend found a violation
  kConfirmed,          // both did (free runs, or the steered counterexample)
  kNotReached,         // the simulator did; the GPU did not, and was not steered
  kNotSteerable,       // the simulator did; the host cannot force its schedule
                       // (steered approximately, or not at all) or the GPU
                       // cannot observe the property
  kNotObservable,      // the simulator found none; the GPU cannot observe it
  kHardwareUnchecked,  // the GPU did; the simulator has no checker for it
  kHardwareOnly,       // MISMATCH: the GPU did, the simulator's search did not
  kNotReproduced,      // MISMATCH: steerable counterexample, GPU did not
  kUnavailable,        // a backend could not judge the row
};

// "holds-on-both", "confirmed", "not-reached", ..., for --json.
absl::string_view RowStatusName(RowStatus status);
// Whether the row makes `validate` fail (exit 1).
bool Disagrees(RowStatus status);

struct RowComparison {
  RowStatus status = RowStatus::kHoldsOnBoth;
  std::string text;  // one line, as the table prints it
};

RowComparison CompareBackends(const SimSide& sim, const HwSide& hw);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_BACKEND_COMPARE_H_
