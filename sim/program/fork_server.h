// A fork server: the program started once, and forked before main for each
// execution, so that an execution does not pay for exec() and the dynamic
// loading of the program, libgomp and this library again (most of a short
// program's cost). The process is single-threaded at that point (this
// library's constructor), so the fork is safe.
//
// With STACKCHECK_EXEC_SERVER="IN,OUT" (two inherited pipe descriptors) the
// constructor serves instead of running: it reads one request line per
// execution from IN,
//
//   OUTPUT_PATH \t NAME=VALUE \t NAME=VALUE ...
//
// forks, and the child sets those environment variables (the execution's
// STACKCHECK_EXEC_* settings), sends its stdout and stderr to OUTPUT_PATH and
// goes on to run the program under control. The server answers on OUT with
// "pid N" once forked and "status S" (a wait status) once the child ended,
// and ends at end of input.
#ifndef STACKCHECK_SIM_PROGRAM_FORK_SERVER_H_
#define STACKCHECK_SIM_PROGRAM_FORK_SERVER_H_

namespace stackcheck::program {

// Returns in a forked child (which then runs under control); serves until the
// requests end otherwise, then exits. No-op without STACKCHECK_EXEC_SERVER.
void ServeForksIfAsked();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_FORK_SERVER_H_
