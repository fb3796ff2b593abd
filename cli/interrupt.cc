#include "cli/interrupt.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <string>

namespace stackcheck::cli {
namespace {

static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

std::atomic<bool> stop_requested{false};
volatile sig_atomic_t caught_signal = 0;

// Directories to remove when a second signal ends the process: fixed slots,
// so the handler reads them without allocating or locking.
constexpr std::size_t kMaxScratch = 8;
constexpr std::size_t kMaxPath = 4096;
std::array<std::array<char, kMaxPath>, kMaxScratch> scratch_paths{};
std::array<std::atomic<bool>, kMaxScratch> scratch_used{};

// Removes `dir` and the files directly in it, with async-signal-safe calls
// only (a scratch directory holds files, never directories).
void RemoveFlatDirectory(const char* dir) {
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buffer[4096];
    for (;;) {
      const long n = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
        at += entry->d_reclen;
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        unlinkat(fd, name, 0);
      }
    }
    close(fd);
  }
  rmdir(dir);
}

void OnSignal(int signal) {
  if (stop_requested.exchange(true)) {
    // The second: no clean stop, but nothing of ours left on disk.
    for (std::size_t i = 0; i < kMaxScratch; ++i) {
      if (scratch_used[i].load()) RemoveFlatDirectory(scratch_paths[i].data());
    }
    ::signal(signal, SIG_DFL);
    raise(signal);
    return;
  }
  caught_signal = signal;
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
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return &stop_requested;
}

int CaughtSignal() { return caught_signal; }

int RemoveOnAbort(const std::string& dir) {
  if (dir.size() >= kMaxPath) return -1;
  for (std::size_t i = 0; i < kMaxScratch; ++i) {
    if (scratch_used[i].load()) continue;
    std::memcpy(scratch_paths[i].data(), dir.c_str(), dir.size() + 1);
    scratch_used[i].store(true);
    return static_cast<int>(i);
  }
  return -1;
}

void KeepOnAbort(int slot) {
  if (slot >= 0 && static_cast<std::size_t>(slot) < kMaxScratch) scratch_used[slot].store(false);
}

}  // namespace stackcheck::cli
