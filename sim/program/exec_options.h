// What a controlled execution is told through its environment (the
// variables program_threads.h lists), parsed once. `stackcheck exec` writes
// them with FormatFaults and the same names.
#ifndef STACKCHECK_SIM_PROGRAM_EXEC_OPTIONS_H_
#define STACKCHECK_SIM_PROGRAM_EXEC_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::program {

// Faults injected into the execution; 0 = none. Counts are 1-based over the
// whole process, in the order the calls reach the simulated driver.
struct FaultPlan {
  std::uint32_t abort_at_launch = 0;  // that kernel traps (SEM-04)
  // If set, abort_at_launch counts only launches of kernels whose name
  // contains it: the kernel whose device code calls abort(), as the program
  // has it ("abort@kernel:thread_a:1"), whichever thread launches first.
  std::string abort_kernel;
  // Those cuMemAllocs: out of memory (sorted, distinct). Two in a row make
  // the retry after a failed allocation fail too (the plugin frees its
  // cache and tries again).
  std::vector<std::uint32_t> oom_at_allocs;
  std::uint32_t reject_at_launch = 0;  // that launch: too many resources

  bool empty() const {
    return abort_at_launch == 0 && oom_at_allocs.empty() && reject_at_launch == 0;
  }
  int count() const {
    return (abort_at_launch != 0) + static_cast<int>(oom_at_allocs.size()) +
           (reject_at_launch != 0);
  }
};

// "abort@launch:2,oom@alloc:3,reject@launch:1" or "abort@kernel:NAME:N";
// "" for none.
absl::StatusOr<FaultPlan> ParseFaults(absl::string_view text);
std::string FormatFaults(const FaultPlan& plan);

struct ExecOptions {
  std::string strategy = "random";
  std::uint64_t seed = 1;
  // replay: the exact answers; sequence: values relative to the running
  // actor (sim/strategies/sequence_strategy.h), the shrinker's form.
  std::vector<std::uint64_t> schedule;
  FaultPlan faults;
  std::string result_path;
  int watchdog_s = 20;
  // The result carries the execution as Chrome trace-event JSON
  // (sim/trace/chrome_trace.h): a replay's, for `replay --format chrome`.
  bool chrome_trace = false;
};

// Reads STACKCHECK_EXEC_*; a malformed value is an error naming it.
absl::StatusOr<ExecOptions> ExecOptionsFromEnvironment();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_EXEC_OPTIONS_H_
