#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace stackcheck::cli {
namespace {

static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

std::atomic<bool> stop_requested{false};
volatile sig_atomic_t caught_signal = 0;

void OnSignal(int signal) {
  caught_signal = signal;
  stop_requested.store(true, std::memory_order_relaxed);
  constexpr char kNote[] =
      "\nstackcheck: stopping; the results so far follow (signal again to abort)\n";
  const ssize_t ignored = write(STDERR_FILENO, kNote, sizeof(kNote) - 1);
  (void)ignored;
}

}  // namespace

const std::atomic<bool>* StopOnSignals() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the second signal takes its default action
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return &stop_requested;
}

int CaughtSignal() { return caught_signal; }

}  // namespace stackcheck::cli
