// One controlled execution's result, as the preloaded library writes it
// (STACKCHECK_EXEC_RESULT) and `stackcheck exec` reads it: the verdict, the
// schedule that produced it (the replay token's heart), the trace digest, and
// a timeline with the program's real call names.
#ifndef STACKCHECK_SIM_PROGRAM_EXEC_RESULT_H_
#define STACKCHECK_SIM_PROGRAM_EXEC_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/program/call_record.h"

namespace stackcheck::sim {
class Simulator;
class SimHost;
struct ExecutionResult;
}  // namespace stackcheck::sim

namespace stackcheck::program {

// The exit status of an execution's process whose fault was the library's
// own, not the program's (fault_handlers.h): it writes no result.
inline constexpr int kInternalErrorStatus = 88;

struct TimelineEvent {
  std::uint64_t ns = 0;  // virtual time
  std::string actor;     // "T1", "gpu:s0", "callback"
  std::string text;      // the event, every name filled in
};

struct ExecReport {
  std::string verdict = "clean";  // clean | violation | stuck
  std::string property;           // the violated property, if any
  std::string message;
  std::string fingerprint;
  std::vector<std::string> waits;  // no-deadlock: the wait-for cycle
  bool waits_form_cycle = false;
  std::string replay_status;  // replay only: empty when faithful
  int exit_status = -1;       // the program's, when it exited
  std::string strategy;
  std::uint64_t seed = 0;
  std::string faults;
  std::vector<std::uint64_t> choices;   // the schedule: exact answers (replay)
  std::vector<std::uint64_t> sequence;  // the same, relative to the running
                                        // actor: 0 = no preemption (shrinking)
  std::uint64_t preemptions = 0;        // answers that made a runnable thread wait
  // For each answer of `sequence`: how many answers the point offered, and
  // whether a non-zero one preempts (a thread was running and could go on).
  // What an outside depth-first search needs to extend the schedule tree.
  std::vector<std::uint64_t> point_widths;
  std::vector<bool> point_preempts;
  std::uint64_t digest = 0;
  std::uint64_t steps = 0;
  std::vector<TimelineEvent> timeline;  // the simulator's events
  std::vector<CallRecord> calls;        // the program's calls, in order
  // ExecOptions::chrome_trace: the execution as Chrome trace-event JSON.
  std::string chrome_trace;
};

// The verdict, schedule, digest and timeline of a finished execution; with
// `chrome_trace`, its trace as the model path renders one too.
ExecReport DescribeExecution(const sim::Simulator& simulator, const sim::SimHost& host,
                             const sim::ExecutionResult& result, bool chrome_trace);

// "     1.2ms  T1        driver-call cuMemAlloc -> 0 SUCCESS"
std::string FormatTimelineEvent(const TimelineEvent& e);

// "clean, 212 steps, digest 0x..." or "VIOLATION no-deadlock: ...".
std::string OneLine(const ExecReport& report);

absl::Status WriteReport(const ExecReport& report, const std::string& path);
absl::StatusOr<ExecReport> ReadReport(const std::string& path);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_EXEC_RESULT_H_
