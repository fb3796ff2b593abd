// Work that may hang for good - a benchmark cell blocked in the driver, a
// policy that deadlocks - run in a forked child, so that a hang costs the
// child and not the caller: the caller never touches what the child opened
// (the CUDA driver must not be initialised in the parent of a fork that uses
// it), and a child that goes quiet is killed.
#ifndef STACKCHECK_HARDWARE_CHILD_PROCESS_H_
#define STACKCHECK_HARDWARE_CHILD_PROCESS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace stackcheck::hardware {

// What the child said before it ended or was killed.
struct ChildOutput {
  std::vector<std::string> lines;  // in the order emitted, without '\n'
  // No line came for `quiet_limit`: the child was killed (SIGKILL).
  bool hung = false;
  // Set when the child ended otherwise than by returning from `work`
  // (a signal, a non-zero exit): what ended it.
  std::string abnormal_end;
};

// Emits one line to the parent (it must not contain '\n').
using EmitLine = std::function<void(absl::string_view line)>;

// Forks; the child runs `work`, then ends with _exit(0) (no destructors or
// exit handlers of the parent's run twice). The parent reads the lines as
// they come and waits for the child; an error only when the fork or pipe
// cannot be made.
absl::StatusOr<ChildOutput> RunInChild(const std::function<void(const EmitLine&)>& work,
                                       absl::Duration quiet_limit);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_CHILD_PROCESS_H_
