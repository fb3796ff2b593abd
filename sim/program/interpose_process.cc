// The program's process-level calls that would otherwise break control of
// its threads (program_threads.h):
//
// - fork: the child holds a copy of the forking thread only, none of the
//   threads it would hand control to; it runs uncontrolled, as a process the
//   program starts does, and its driver calls fail (InForkedChild). The fork
//   itself is a scheduling point of the forking thread.
// - sigprocmask, pthread_sigmask: a thread that blocks SIGSYS would be killed
//   by the kernel at its next libgomp futex, which the seccomp filter turns
//   into that signal (futex_trap.h): SIGSYS is left out of every set the
//   program blocks. (The faults this library also handles, SIGSEGV and the
//   like, reach their thread blocked or not.)
#include <signal.h>
#include <unistd.h>

#include "sim/program/entry_point.h"
#include "sim/program/interposed_call.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

// `set` without SIGSYS while the futex trap is in place; nullptr stays nullptr.
const sigset_t* WithoutOurs(int how, const sigset_t* set, sigset_t* copy) {
  if (set == nullptr || how == SIG_UNBLOCK || !(Controlled() || InForkedChild())) return set;
  *copy = *set;
  sigdelset(copy, SIGSYS);
  return copy;
}

}  // namespace

extern "C" {

STACKCHECK_ENTRY_POINT pid_t fork() {
  if (!IsProgramCall(STACKCHECK_CALLER)) return Real().fork();
  AtPoint([](Twin& twin) { twin.host.ProgramCall("fork"); });
  const pid_t child = Real().fork();
  if (child == 0) BecomeForkedChild();
  return child;
}

STACKCHECK_ENTRY_POINT int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  sigset_t copy;
  return Real().sigprocmask(how, WithoutOurs(how, set, &copy), old);
}

STACKCHECK_ENTRY_POINT int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  sigset_t copy;
  return Real().pthread_sigmask(how, WithoutOurs(how, set, &copy), old);
}

}  // extern "C"

}  // namespace stackcheck::program
