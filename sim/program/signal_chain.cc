#include "sim/program/signal_chain.h"

#include <dlfcn.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "sim/program/entry_point.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

constexpr int kSignals = 65;

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

SigactionFn RealSigaction() {
  static auto real = reinterpret_cast<SigactionFn>(Real().dlsym(RTLD_NEXT, "sigaction"));
  return real;
}

// Per claimed signal: the program's own disposition.
struct Chain {
  std::atomic<bool> claimed{false};
  struct sigaction program {};
};
Chain g_chains[kSignals];

bool Claimed(int signal) {
  return signal > 0 && signal < kSignals &&
         g_chains[signal].claimed.load(std::memory_order_acquire);
}

}  // namespace

absl::Status ClaimSignal(int signal, SignalHandler handler) {
  if (signal <= 0 || signal >= kSignals) return absl::InvalidArgumentError("no such signal");
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  struct sigaction previous {};
  if (RealSigaction() == nullptr || RealSigaction()(signal, &action, &previous) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot handle signal ", signal, ": ", std::strerror(errno)));
  }
  Chain& chain = g_chains[signal];
  if (!chain.claimed.load(std::memory_order_acquire)) chain.program = previous;
  chain.claimed.store(true, std::memory_order_release);
  return absl::OkStatus();
}

void PassToProgram(int signal, siginfo_t* info, void* context) {
  const struct sigaction& program = g_chains[signal].program;
  if (program.sa_flags & SA_SIGINFO) {
    if (program.sa_sigaction != nullptr) program.sa_sigaction(signal, info, context);
    return;
  }
  if (program.sa_handler == SIG_IGN) return;
  if (program.sa_handler != SIG_DFL && program.sa_handler != nullptr) {
    program.sa_handler(signal);
    return;
  }
  // The default action, ours no longer in the way.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  RealSigaction()(signal, &fallback, nullptr);
  g_chains[signal].claimed.store(false, std::memory_order_release);
  if (info == nullptr || info->si_code <= 0) raise(signal);
}

}  // namespace stackcheck::program

using stackcheck::program::Claimed;
using stackcheck::program::g_chains;
using stackcheck::program::RealSigaction;

extern "C" {

STACKCHECK_ENTRY_POINT int sigaction(int signal, const struct sigaction* action,
                                     struct sigaction* old) {
  if (!Claimed(signal)) {
    if (RealSigaction() == nullptr) {
      errno = ENOSYS;
      return -1;
    }
    return RealSigaction()(signal, action, old);
  }
  // The program's handler is kept for the signals that are not this library's.
  if (old != nullptr) *old = g_chains[signal].program;
  if (action != nullptr) g_chains[signal].program = *action;
  return 0;
}

STACKCHECK_ENTRY_POINT sighandler_t signal(int signal, sighandler_t handler) {
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;  // glibc's signal() is BSD's
  sigemptyset(&action.sa_mask);
  struct sigaction old {};
  if (sigaction(signal, &action, &old) != 0) return SIG_ERR;
  // The union's other member, as the C library's signal() answers too.
  return old.sa_handler;
}

}  // extern "C"
