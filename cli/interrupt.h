// Stopping a long command cleanly: the first SIGINT or SIGTERM sets a flag
// the command polls, so it can stop and report what it has; a second one
// ends the process as usual.
#ifndef STACKCHECK_CLI_INTERRUPT_H_
#define STACKCHECK_CLI_INTERRUPT_H_

#include <atomic>

namespace stackcheck::cli {

// Installs the handlers; returns the flag they set.
const std::atomic<bool>* StopOnSignals();

// The signal that set the flag, 0 when none.
int CaughtSignal();

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_INTERRUPT_H_
