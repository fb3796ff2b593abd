// Runs a real program once under the simulated driver with its threads
// controlled (sim/program/program_threads.h): the child process gets the
// library preloaded and the execution's settings in its environment, and
// leaves its result (typed: verdict, schedule, call log) in a file this reads
// back. ExploreProgram (explore_program.h) calls it once per execution.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_RUN_H_
#define STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_RUN_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/program/exec_options.h"
#include "sim/program/exec_result.h"

namespace stackcheck::properties {

struct ProgramUnderTest {
  std::string libcuda;  // the simulated libcuda.so.1
  std::string program;  // an executable path
  std::vector<std::string> args;
  int watchdog_s = 20;
  std::string scratch;  // a directory for the run's files (scratch_directory.h)
  // Start the program once and fork it before main for each execution
  // (sim/program/fork_server.h); off: one exec() per execution.
  bool fork_server = true;
  // An execution in progress when `stop` is set or `deadline` passes is
  // killed and comes back as kStopped: a signal or a time budget bounds a
  // command within a moment, not within an execution's watchdog.
  const std::atomic<bool>* stop = nullptr;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct RunSettings {
  std::string strategy = "random";  // random | pct | sequence | replay
  std::uint64_t seed = 1;
  std::vector<std::uint64_t> schedule;
  program::FaultPlan faults;
  bool chrome_trace = false;  // the result carries the execution's Chrome trace
};

struct RunOutcome {
  enum class Kind {
    kFinished,       // the library wrote a result (clean, violation or stuck)
    kCrashed,        // the process died (a signal) before any result
    kTimedOut,       // it did not end within the watchdog's margin; killed
    kStartFailed,    // it exited without a result (not OpenMP, bad settings)
    kInternalError,  // stackcheck's library faulted in it (its output says where)
    kStopped,        // killed for ProgramUnderTest::stop or deadline: not an outcome
  };
  Kind kind = Kind::kFinished;
  program::ExecReport report;  // kFinished
  int exit_status = 0;         // the process's, or the signal (kCrashed)
  std::string output;          // its stdout and stderr, the last 8 KiB
  double seconds = 0;
};

// Where libcuda.so.1 is: `flag` if given, else $STACKCHECK_LIBCUDA, else
// beside this binary in Bazel's output tree or its runfiles.
absl::StatusOr<std::string> FindLibcuda(const std::string& flag);

absl::StatusOr<RunOutcome> RunOnce(const ProgramUnderTest& program, const RunSettings& settings);

// Whether `program`'s stop is set or its deadline passed.
bool Stopping(const ProgramUnderTest& program);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_RUN_H_
