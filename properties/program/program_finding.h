// What one execution of a real program showed, in the terms a search
// compares and reports: whether it violated a property (a run that did not
// finish is a violation of its own kind), the shared Finding's violation,
// whether two executions show the same bug, and how to describe it.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_FINDING_H_
#define STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_FINDING_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "properties/program/program_run.h"
#include "sim/monitor.h"

namespace stackcheck::properties {

bool Violated(const RunOutcome& outcome);

// The violation: the property, message, fingerprint and wait-for links the
// program's process reported, or for a run that did not finish "no-crash"
// (the signal), "progress" (the watchdog), "start" or "internal-error".
sim::Violation ViolationOf(const RunOutcome& outcome);

// One bug, whichever fault started it: a trap, a rejected launch or an
// allocation failure under the same locks end in the same state, so the
// fingerprint's closing "; fault KIND" does not tell findings apart.
bool SameBug(const sim::Violation& a, const sim::Violation& b);

// "CRASH: the program died with signal 11", or the report's one line.
std::string Describe(const RunOutcome& outcome);

// For people: the wait-for cycle, the fingerprint, the last `timeline_tail`
// events of the timeline, the last calls and the program's output.
std::string FormatOutcome(const RunOutcome& outcome, std::size_t timeline_tail);

// The kernels launched and the device allocations an execution made (the
// fault search's range), from its call log.
struct CallCounts {
  std::uint32_t launches = 0;
  std::uint32_t allocs = 0;
};
CallCounts CountCalls(const program::ExecReport& report);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_FINDING_H_
