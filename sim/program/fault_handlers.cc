#include "sim/program/fault_handlers.h"

#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>

#include "sim/program/kernel_body.h"
#include "sim/program/loaded_text.h"
#include "sim/program/program_threads.h"
#include "sim/program/real_functions.h"
#include "sim/program/signal_chain.h"

namespace stackcheck::program {
namespace {

// SIGABRT: an assertion or abort() in a kernel's code that did not come
// through this library's abort(); elsewhere always the program's (its
// program counter is the C library's).
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT};

const void* FaultingInstruction(void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
  return reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
}

// Only async-signal-safe calls: the process is in an unknown state.
[[noreturn]] void ReportInternalError(int signal, const void* at) {
  char line[256];
  const int n = std::snprintf(line, sizeof line,
                              "stackcheck exec: FAULT IN STACKCHECK'S LIBRARY: %s at %p in "
                              "libcuda.so.1, not in the program's code (an internal error, or "
                              "a bad pointer passed to the driver); backtrace:\n",
                              strsignal(signal), at);
  if (n > 0) (void)!write(STDERR_FILENO, line, static_cast<std::size_t>(n));
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  _exit(kInternalErrorStatus);
}

void OnFault(int signal, siginfo_t* info, void* context) {
  if (InKernelBody()) EndKernelWithTrap(strsignal(signal));
  static const TextRange ours = TextHolding(reinterpret_cast<const void*>(&OnFault));
  const void* at = FaultingInstruction(context);
  if (signal != SIGABRT && ours.Contains(at)) ReportInternalError(signal, at);
  // The program's own fault (GCC's plugin among its code): what led there is
  // written as a finding, then the signal takes its course.
  if (Controlled()) ProgramCrashes(signal, at);
  PassToProgram(signal, info, context);
}

}  // namespace

void InstallFaultHandlers() {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  Real().pthread_once(&once, [] {
    // backtrace() loads libgcc on first use: not inside a signal handler.
    void* warm[1];
    backtrace(warm, 1);
    for (int signal : kFaultSignals) ClaimSignal(signal, &OnFault).IgnoreError();
  });
}

}  // namespace stackcheck::program
