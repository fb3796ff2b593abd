// Signals this library handles itself: SIGSYS, by which the seccomp filter
// hands it libgomp's futexes (futex_trap.h), and the faults that end a
// kernel's code (kernel_body.h). A program that installs its own handler for
// one of them (libgfortran does, for every fatal signal, to print a
// backtrace) must not displace this library's: `sigaction` and `signal` are
// interposed, the program's handler is recorded instead, and this library
// passes the program every signal that is not its own.
#ifndef STACKCHECK_SIM_PROGRAM_SIGNAL_CHAIN_H_
#define STACKCHECK_SIM_PROGRAM_SIGNAL_CHAIN_H_

#include <signal.h>

#include "absl/status/status.h"

namespace stackcheck::program {

using SignalHandler = void (*)(int, siginfo_t*, void*);

// Installs `handler` for `signal` (SA_SIGINFO | SA_NODEFER | SA_ONSTACK), keeping
// whatever the program had as the program's.
absl::Status ClaimSignal(int signal, SignalHandler handler);

// Delivers `signal` as the program asked for it: its handler, nothing if it
// ignores the signal, or the default action (a fault that returns from here
// faults again and ends the process; a raised signal is raised again).
void PassToProgram(int signal, siginfo_t* info, void* context);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_SIGNAL_CHAIN_H_
