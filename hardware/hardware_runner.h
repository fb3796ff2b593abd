// Runs one Scenario under one policy on the GPU, with real threads, and judges
// it property by property in the catalogue's vocabulary
// (properties/catalogue.h), so its verdicts sit beside the simulator's.
//
// Each run happens in a forked child process: a device abort poisons the
// context for the rest of the process (SEM-05), and the runtime's fatal path
// ends the process through exit, as libgomp's does. The child records what it
// sees into shared memory (hardware/run_record.h) as it goes; a watchdog turns a
// hang into a "no-deadlock" violation that names each thread's last operation.
//
// What the hardware can tell (and how):
//   no-stack-overlap   the kernels' slot stamps (another region's stamp found)
//   no-leak            the backend's ledger at CtxDestroy, cross-checked with
//                      cuMemGetInfo against a fresh context's baseline
//   no-deadlock        the watchdog (progress: the same signal; a hang and a
//                      livelock look alike from outside)
//   mutex-discipline   the owner-aware OS mutex's records
//   abort-attribution  the fatal report's region against the aborting regions
//   bounded-cache      RuntimeObserver::CacheHeld against the soft limit
//   sync-completion    an event recorded behind each region's launch, queried
//                      when run() returns
//   no-driver-call-in-callback  the backend counts driver calls made from its
//                      callback trampolines
// no-use-after-free is not separately observable (cuMemFree waits for the
// device, SEM-11; a reuse shows as overlap): reported as not observed.
#ifndef STACKCHECK_HARDWARE_HARDWARE_RUNNER_H_
#define STACKCHECK_HARDWARE_HARDWARE_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "real/jitter.h"

namespace stackcheck::hardware {

struct HardwareRunOptions {
  real::JitterOptions jitter;
  // A run that has not ended this long after its start (plus the scenario's
  // total kernel time) is a hang.
  absl::Duration watchdog = absl::Seconds(5);
  int device_ordinal = 0;
  // Emulate the scenario's device_capacity (the H200 has ~141 GB): an
  // allocation that would take the runtime's live bytes above it fails with
  // CUDA_ERROR_OUT_OF_MEMORY, as on the simulator's smaller device.
  bool emulate_capacity = true;
  // Run in this process instead of a forked child, and end the process with
  // the run (RunOnHardware never returns): for tools that follow one process,
  // such as compute-sanitizer's leak check. No watchdog, no verdicts.
  bool in_process = false;
  // Steering a run towards a simulator counterexample's interleaving: the
  // i-th host thread the scenario spawns waits spawn_delays[i] before its
  // program starts, and every region's kernel runs at least
  // min_kernel_duration (so that a callback the counterexample found pending
  // is still pending on real hardware).
  std::vector<absl::Duration> spawn_delays;
  absl::Duration min_kernel_duration = absl::ZeroDuration();
};

enum class HwVerdict { kHolds, kViolated, kNotObserved };
absl::string_view HwVerdictName(HwVerdict v);  // "holds", "VIOLATED", "-"

struct PropertyResult {
  std::string property;  // a catalogue name
  HwVerdict verdict = HwVerdict::kNotObserved;
  std::string evidence;  // one line, empty when it holds
};

struct HardwareRunResult {
  enum class Ending {
    kExited,    // the process ended by itself (exit_status)
    kWatchdog,  // the watchdog ended a hang
    kKilled,    // did not even end after the watchdog: killed
    kCrashed,   // a signal
    kSetupFailed,
  };
  Ending ending = Ending::kSetupFailed;
  // The watchdog ended it, or it did not end even then.
  bool Hung() const { return ending == Ending::kWatchdog || ending == Ending::kKilled; }
  int exit_status = 0;  // kExited
  int signal = 0;       // kCrashed / kKilled
  double seconds = 0;
  std::string setup_error;
  std::vector<PropertyResult> properties;  // catalogue order
  std::vector<std::string> hang_report;    // each thread's last operation
  std::vector<std::string> facts;          // raw observations, one per line

  const PropertyResult* Find(absl::string_view property) const;
  std::string EndingText() const;
};

// Forks, runs, judges. Errors only for what prevents a run at all (fork or
// mmap failing); a missing driver or a failing cuInit is kSetupFailed with the
// reason in setup_error. The calling process must not have initialised CUDA
// (fork after cuInit is not supported by the driver); loading it is fine.
absl::StatusOr<HardwareRunResult> RunOnHardware(const Scenario& scenario, const PolicyInfo& policy,
                                                const HardwareRunOptions& options);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_HARDWARE_RUNNER_H_
