// A simulator counterexample (a replay file or token) taken to the GPU: the
// same scenario under the same policy, run on real threads with the steering
// that makes the counterexample's interleaving the likely one on hardware
// (thread start delays in the order its schedule chose, kernels stretched so
// what it found pending stays pending), several times. Reports the
// simulator's verdict from replaying the recorded schedule, and whether the
// hardware runs violate the same property.
#ifndef STACKCHECK_REAL_STEERED_REPLAY_H_
#define STACKCHECK_REAL_STEERED_REPLAY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "properties/replay_file.h"
#include "real/hardware_runner.h"

namespace stackcheck::real {

struct SteeredReplayOptions {
  int runs = 3;
  HardwareRunOptions run;  // spawn_delays, min_kernel_duration, watchdog
};

struct SteeredReplayResult {
  properties::ReplayRecord record;
  std::string scenario_text;  // DescribeScenario of the case
  bool sim_violated = false;  // the recorded property, on replay
  std::string sim_message;
  std::vector<HardwareRunResult> runs;
  int reproduced = 0;  // hardware runs violating the recorded property
};

// `replay` is a file path or a token (properties::LoadReplay).
absl::StatusOr<SteeredReplayResult> ReplayOnHardware(
    absl::string_view replay, const SteeredReplayOptions& options);

std::string FormatSteeredReplay(const SteeredReplayResult& result,
                                const SteeredReplayOptions& options);

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_STEERED_REPLAY_H_
