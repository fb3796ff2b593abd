// Runs a real program once under the simulated driver with its threads
// controlled (sim/program/program_threads.h): the child process gets the
// library preloaded and the execution's settings in its environment, and
// leaves its result in a file this reads back.
#ifndef STACKCHECK_CLI_EXEC_RUNNER_H_
#define STACKCHECK_CLI_EXEC_RUNNER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/program/exec_options.h"
#include "sim/program/exec_result.h"

namespace stackcheck::cli {

// A directory of its own under the system's temporary one, for a run's
// files; removed with everything in it when this goes, and by a second
// SIGINT/SIGTERM that ends the process (cli/interrupt.h).
class ScratchDirectory {
 public:
  static absl::StatusOr<ScratchDirectory> Make();
  ScratchDirectory(ScratchDirectory&& other) noexcept;
  ScratchDirectory& operator=(ScratchDirectory&&) = delete;
  ~ScratchDirectory();
  const std::string& path() const { return path_; }

 private:
  ScratchDirectory(std::string path, int abort_slot)
      : path_(std::move(path)), abort_slot_(abort_slot) {}
  std::string path_;
  int abort_slot_ = -1;
};

struct ProgramUnderTest {
  std::string libcuda;  // the simulated libcuda.so.1
  std::string program;  // an executable path
  std::vector<std::string> args;
  int watchdog_s = 20;
  std::string scratch;  // a directory for the run's files (ScratchDirectory)
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

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_EXEC_RUNNER_H_
