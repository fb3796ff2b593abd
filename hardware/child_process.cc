#include "hardware/child_process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace stackcheck::hardware {
namespace {

void WriteAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nothing to tell
    data.remove_prefix(static_cast<size_t>(n));
  }
}

std::string DescribeEnd(int status) {
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)),
                        ")");
  }
  return absl::StrCat("exit status ", WEXITSTATUS(status));
}

}  // namespace

absl::StatusOr<ChildOutput> RunInChild(const std::function<void(const EmitLine&)>& work,
                                       absl::Duration quiet_limit) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  }
  if (pid == 0) {
    close(fds[0]);
    const int out = fds[1];
    work([out](absl::string_view line) { WriteAll(out, absl::StrCat(line, "\n")); });
    _exit(0);
  }
  close(fds[1]);
  ChildOutput result;
  std::string pending;
  const int quiet_ms = static_cast<int>(absl::ToInt64Milliseconds(quiet_limit));
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, quiet_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      result.hung = true;
      kill(pid, SIGKILL);
      break;
    }
    char buffer[4096];
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: it has ended
    pending.append(buffer, static_cast<size_t>(n));
    size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      result.lines.push_back(pending.substr(0, newline));
      pending.erase(0, newline + 1);
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.hung && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    result.abnormal_end = DescribeEnd(status);
  }
  return result;
}

}  // namespace stackcheck::hardware
