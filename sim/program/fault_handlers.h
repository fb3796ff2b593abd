// The fatal signals of a process this library is in, sorted by where they
// happen: in a kernel's code they are the kernel's trap (kernel_body.h); in
// this library's own code they are stackcheck's internal error, written to
// stderr with a backtrace, and the process ends with kInternalErrorStatus, so
// that `exec` never reports its own fault as the program's crash; anywhere
// else they are the program's own, delivered as it asked (signal_chain.h).
#ifndef STACKCHECK_SIM_PROGRAM_FAULT_HANDLERS_H_
#define STACKCHECK_SIM_PROGRAM_FAULT_HANDLERS_H_

#include "sim/program/exec_result.h"  // kInternalErrorStatus

namespace stackcheck::program {

// Installs the handlers (once; later calls do nothing).
void InstallFaultHandlers();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_FAULT_HANDLERS_H_
