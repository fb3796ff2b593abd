// A simulator counterexample (a replay file or token) taken to the GPU: the
// same scenario under the same policy, run on real threads with the steering
// that makes the counterexample's interleaving the likely one on hardware
// (thread start delays in the order its schedule chose, kernels stretched so
// what it found pending stays pending), several times. Reports the
// simulator's verdict from replaying the recorded schedule, and whether the
// hardware runs violate the same property.
//
// SteeringFor derives the steering from the counterexample itself, by
// replaying its schedule on the simulator:
//  - kernels are stretched to kPendingKernel when a kernel was still pending
//    at a region's start or at the violation;
//  - host threads start in the order the schedule first ran them: a thread
//    whose first step came later in virtual time (after a kernel ran) starts
//    that much later, unless kernels are stretched; one whose first step came
//    at the same virtual time as an earlier thread's starts kSpawnGap after
//    it; one it never ran past its start begins kNeverRanGap after the
//    counterexample's last event;
// and says when no host-side steering can force the schedule ("not
// steerable"):
//  - the GPU cannot observe the property (no-use-after-free: cuMemFree waits
//    for the device, SEM-11);
//  - the schedule holds a driver callback thread back while it could run:
//    the runner can delay a callback only before it starts, not inside it
//    (after it took a lock, say);
//  - the schedule preempts a host thread that has started in favour of
//    another one that has too, or in favour of the callback thread: the
//    runner delays threads only at their start;
//  - the schedule makes a data choice (which pending callbacks run at once,
//    which allocation fails) that the driver makes on hardware;
// and when the steering makes the schedule likely without forcing it
// ("approximate"): the runs are made, a violation they show confirms the
// counterexample, and one they miss is no disagreement:
//  - the schedule runs a host thread while another, woken from a wait at the
//    same moment (a kernel's end, a released lock), is kept waiting: on
//    hardware the OS picks between them;
//  - the schedule keeps a host thread that could go on between two of its
//    steps while virtual time passes and another actor changes what its next
//    step sees (a kernel's sticky error, a lock taken): on hardware it goes
//    on within microseconds;
//  - the schedule lets a host thread take a lock before the callback that a
//    release of it woke: on hardware the two race.
#ifndef STACKCHECK_HARDWARE_STEERED_REPLAY_H_
#define STACKCHECK_HARDWARE_STEERED_REPLAY_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "hardware/hardware_runner.h"
#include "properties/replay_file.h"

namespace stackcheck::hardware {

// Runs one scenario on the GPU: RunOnHardware, or a stand-in that a test
// feeds synthetic results through.
using HardwareRunFn = std::function<absl::StatusOr<HardwareRunResult>(
    const Scenario&, const PolicyInfo&, const HardwareRunOptions&)>;

struct SteeredReplayOptions {
  int runs = 3;
  HardwareRunOptions run;         // spawn_delays, min_kernel_duration, watchdog
  HardwareRunFn run_on_hardware;  // empty: RunOnHardware
};

// Whether the hardware runner judges `property` at all: what the property
// catalogue says (properties/catalogue.cc, its backends), the one home of that
// fact; hardware_judgements_test holds the judgements to it. A
// property the GPU cannot observe is never counted as "steered, not
// reproduced".
bool HardwareObserves(absl::string_view property);

inline constexpr absl::Duration kSpawnGap = absl::Milliseconds(20);
inline constexpr absl::Duration kPendingKernel = absl::Milliseconds(100);
// How long after the counterexample's last event a thread it never ran past
// its start begins: long enough for the others' exit to end the process. On
// the H200 a trapped kernel's error reaches the host hundreds of
// milliseconds after the trap (an aborting one-region run takes 0.81-0.86 s,
// a clean one 0.48-0.55 s; hardware/VALIDATION.md), and a thread started
// 200 ms after the counterexample's end still found the aborting thread in
// its synchronisation.
inline constexpr absl::Duration kNeverRanGap = absl::Seconds(1);

struct Steering {
  bool steerable = false;
  std::string not_steerable;  // why, when !steerable
  // Why the delays make the schedule likely without forcing it; empty when
  // they force it (then a run that misses the violation is a disagreement).
  std::string approximate;
  std::vector<absl::Duration> spawn_delays;
  absl::Duration min_kernel_duration = absl::ZeroDuration();

  // "start delays [0, 20ms], kernels at least 100ms" (then "; approximate:
  // ..." when it is) or "not steerable: ...".
  std::string Describe() const;
};

// Errors: the record's policy is unknown, or its schedule does not replay to
// its violation on the simulator.
absl::StatusOr<Steering> SteeringFor(const properties::ReplayRecord& record);

struct SteeredReplayResult {
  properties::ReplayRecord record;
  std::string scenario_text;  // DescribeScenario of the case
  bool sim_violated = false;  // the recorded property, on replay
  std::string sim_message;
  std::vector<HardwareRunResult> runs;
  int reproduced = 0;  // hardware runs violating the recorded property
};

// `replay` is a file path or a token (properties::LoadReplay).
absl::StatusOr<SteeredReplayResult> ReplayOnHardware(absl::string_view replay,
                                                     const SteeredReplayOptions& options);
absl::StatusOr<SteeredReplayResult> ReplayOnHardware(const properties::ReplayRecord& record,
                                                     const SteeredReplayOptions& options);

std::string FormatSteeredReplay(const SteeredReplayResult& result,
                                const SteeredReplayOptions& options);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_STEERED_REPLAY_H_
