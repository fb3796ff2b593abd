// libgomp's own locks, made visible. libgomp does not lock with pthread
// mutexes: its gomp_mutex_t (the device lock, devicep->lock, among others)
// is an int changed with atomic instructions, and a thread that finds it
// taken sleeps in a futex system call issued by inline assembly in libgomp's
// code, which no preloaded function can wrap. A seccomp filter turns exactly
// those system calls (futex, issued from libgomp's text) into a SIGSYS for
// the calling thread, whose handler runs the futex operation against the
// simulator instead: a FUTEX_WAIT blocks the thread's twin on a wait queue
// for that futex word (so that a thread asleep in libgomp's device lock takes
// part in the wait-for graph), a FUTEX_WAKE wakes twins. The handler sets
// the system call's result in the interrupted registers, as the kernel would.
#ifndef STACKCHECK_SIM_PROGRAM_FUTEX_TRAP_H_
#define STACKCHECK_SIM_PROGRAM_FUTEX_TRAP_H_

#include "absl/status/status.h"

namespace stackcheck::program {

// Installs the filter for every thread of the process (call before any
// thread but the main one exists). An error when libgomp is not loaded or the
// kernel refuses the filter.
absl::Status InstallFutexTrap();

struct Twin;
// A thread entered a plugin call libgomp makes holding its device lock
// (plugin_calls.h): a thread already asleep in a libgomp futex whose holder
// was unknown when it began to wait now waits for this one.
void DeviceLockHolderKnown(Twin& twin);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_FUTEX_TRAP_H_
