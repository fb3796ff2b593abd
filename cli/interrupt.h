// Stopping a long command cleanly: the first SIGINT or SIGTERM sets a flag
// the command polls, so it can stop and report what it has; a second one
// ends the process as usual, once the scratch directories registered with
// RemoveOnAbort are gone.
#ifndef STACKCHECK_CLI_INTERRUPT_H_
#define STACKCHECK_CLI_INTERRUPT_H_

#include <atomic>
#include <string>

namespace stackcheck::cli {

// Installs the handlers; returns the flag they set.
const std::atomic<bool>* StopOnSignals();

// The signal that set the flag, 0 when none.
int CaughtSignal();

// A directory of files (no subdirectories) that a second signal, which ends
// the process at once, removes first. Returns a slot for KeepOnAbort, or -1
// when none is free (then it is left). Not thread-safe against itself.
int RemoveOnAbort(const std::string& dir);
void KeepOnAbort(int slot);

// RemoveOnAbort for as long as it lives.
class RemovedOnAbort {
 public:
  explicit RemovedOnAbort(const std::string& dir) : slot_(RemoveOnAbort(dir)) {}
  RemovedOnAbort(const RemovedOnAbort&) = delete;
  RemovedOnAbort& operator=(const RemovedOnAbort&) = delete;
  ~RemovedOnAbort() { KeepOnAbort(slot_); }

 private:
  int slot_;
};

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_INTERRUPT_H_
