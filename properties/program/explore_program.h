// The real-program counterpart of Explore (properties/explore.h): runs an
// unmodified OpenMP offload program on the simulated GPU, its threads under
// the simulator's control, once per schedule (random, PCT, or every schedule
// within a preemption bound), with faults injected by a plan or by a search
// over plans, and returns one report. Each distinct finding is shrunk,
// replayed to check it is deterministic, and saved as a replay file and
// token (program_replay.h). `stackcheck exec` is read flags -> this ->
// render; ReplayProgram is `stackcheck replay` of an exec token.
//
//   ProgramSpec spec;
//   spec.libcuda = *FindLibcuda("");
//   spec.program = *ResolveProgram("abort_while_mapping");
//   spec.args = {"map"};
//   spec.strategy = "dfs";
//   ProgramReport r = ExploreProgram(spec);  // r.exhausted, r.findings, r.status
#ifndef STACKCHECK_PROPERTIES_PROGRAM_EXPLORE_PROGRAM_H_
#define STACKCHECK_PROPERTIES_PROGRAM_EXPLORE_PROGRAM_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "properties/finding.h"
#include "properties/program/program_replay.h"
#include "properties/program/program_run.h"
#include "sim/program/exec_options.h"

namespace stackcheck::properties {

// The ranges ExploreProgram and ReplayProgram accept (a command line checks
// its flags against the same).
inline constexpr int kMaxPreemptionBound = 1000;  // -1 (none) to this
inline constexpr int kMaxFaultsPerPlan = 4;       // 1 to this
inline constexpr int kMaxWatchdogSeconds = 3600;  // 1 to this

struct ProgramSpec {
  std::string libcuda;  // the simulated libcuda.so.1 (FindLibcuda)
  std::string program;  // an executable's absolute path (ResolveProgram)
  std::vector<std::string> args;
  std::string strategy = "random";  // random | pct | dfs
  int preemption_bound = 1;         // dfs; -1: none
  enum class Faults {
    kNone,
    kPlan,    // `plan` in every execution
    kSearch,  // random, pct: the first execution fault-free, then a random
              // plan each; dfs: the fault-free plan, then every plan of up to
              // `max_faults` faults, each with every schedule within the bound
  };
  Faults faults = Faults::kSearch;
  program::FaultPlan plan;           // kPlan
  int max_faults = 1;                // kSearch: 1-4 fault units a plan may hold
  std::uint64_t seed = 1;            // random, pct: execution i runs seed + i
  std::uint64_t max_executions = 0;  // 0: dfs 1,000,000, else 100
  absl::Duration time_budget = absl::InfiniteDuration();
  // Set, the execution in progress is killed within a moment and the search
  // ends with what it covered (findings reported unshrunk).
  const std::atomic<bool>* interrupt = nullptr;
  int watchdog_s = 20;       // a thread's time between scheduling points
  bool all_findings = true;  // go on after a finding, for other bugs
  int shrink_executions = 200;
  std::string replay_dir;   // where findings' replay files go; "" none
  std::string scratch;      // a directory for the runs' files; "" one of its own
  bool fork_server = true;  // fork each execution from a started program
  // Every few seconds: executions so far and what they found.
  std::function<void(std::uint64_t executions, std::size_t distinct_traces, std::size_t findings,
                     double seconds)>
      on_progress;
};

struct ProgramFinding {
  // The shared form: the shrunk run's violation, the execution that found
  // it, the schedule (exact answers) and token that replay it.
  Finding finding;
  RunOutcome found;        // the execution as found
  RunOutcome shrunk;       // and shrunk
  ExecReplay replay;       // what the replay file and token hold
  std::uint64_t seed = 0;  // random, pct: the seed that found it
  double found_after_s = 0;
  int shrink_executions = 0;
  double shrink_s = 0;
  // "replayed: same trace digest", or why not (REPLAY DIVERGED ...).
  std::string replay_check;
  std::string replay_file;        // "" when none was written
  std::string replay_file_error;  // why it was not, when asked for
};

struct ProgramReport {
  std::uint64_t executions = 0;
  std::size_t distinct_traces = 0;
  double seconds = 0;  // exploring, before the findings were shrunk
  // dfs: every schedule within the bound of every plan walked ran.
  bool exhausted = false;
  bool bound_cut = false;               // the bound left schedules out
  std::size_t fault_plans = 0;          // dfs with a fault search: plans walked
  std::string search_stopped;           // why a dfs ended before its tree did
  std::uint32_t kernels_launched = 0;   // in the first execution
  std::set<int> program_exit_statuses;  // -1: it did not exit
  bool interrupted = false;
  bool out_of_time = false;
  std::vector<ProgramFinding> findings;  // one per bug, in the order found
  // Not OK: InvalidArgument for a bad spec or a program that did not start
  // (`output` holds what it printed); Internal for a fault in stackcheck's
  // library or a nondeterministic schedule tree.
  absl::Status status;
  std::string output;
};

ProgramReport ExploreProgram(const ProgramSpec& spec);

struct ProgramReplaySpec {
  std::string libcuda;
  std::string path_or_token;  // a replay file or an exec1: token
  // The program its user names (a path or a name on PATH): a token is pasted
  // from someone else's report, so it runs nothing else, and only the build
  // the replay recorded.
  std::string program;
  int watchdog_s = 20;
  const std::atomic<bool>* interrupt = nullptr;
  bool chrome_trace = false;  // the run's RunOutcome carries its trace
};

struct ProgramReplayReport {
  ExecReplay replay;              // as loaded, its program the one named
  bool identity_recorded = true;  // false: an older file, run as named
  RunOutcome outcome;
  bool stopped = false;      // interrupted before it ended
  bool same_digest = false;  // the trace is the recorded one
  bool recurred = false;     // the recorded property is violated again
  // When same_digest: the order of the plugin's and the driver's calls, for
  // the observe preload on the real driver (steering.h).
  std::vector<std::string> steering;
};

// InvalidArgument: a malformed file or token, a program that is not the
// recorded one; other errors: the run could not be made.
absl::StatusOr<ProgramReplayReport> ReplayProgram(const ProgramReplaySpec& spec);

// An executable regular file: `name` itself when it holds a '/', else the
// first on PATH; its absolute path.
absl::StatusOr<std::string> ResolveProgram(const std::string& name);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_EXPLORE_PROGRAM_H_
