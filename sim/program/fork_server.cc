#include "sim/program/fork_server.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sim/program/real_functions.h"

namespace stackcheck::program {
namespace {

bool ReadLine(int fd, std::string* line) {
  line->clear();
  char c;
  for (;;) {
    const ssize_t n = read(fd, &c, 1);
    if (n <= 0) return false;
    if (c == '\n') return true;
    line->push_back(c);
  }
}

void WriteLine(int fd, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Keeps every thread of the execution on the CPU it starts on. Only one of
// them runs at a time, so nothing is lost; and the copy-on-write faults of a
// process forked from a large one then need no TLB shootdown on other CPUs,
// nor the handoffs between its threads a wake-up across CPUs.
void PinToThisCpu() {
  const int cpu = sched_getcpu();
  if (cpu < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof(one), &one);  // best effort: a refusal costs speed only
}

// The processes whose parent is this one, alive or not yet reaped, from /proc.
std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return children;
  const std::string self = absl::StrCat(getpid());
  while (const dirent* entry = readdir(proc)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    const std::vector<std::string> fields =
        absl::StrSplit(line.substr(close + 2), ' ', absl::SkipEmpty());
    if (fields.size() > 1 && fields[1] == self) children.push_back(pid);
  }
  closedir(proc);
  return children;
}

// What an execution left running (a child the program forked and did not
// wait for, and its children): this server is their subreaper, so they are
// its children once the execution has ended. Each is killed and reaped; the
// children of one killed come to this server in turn.
void EndOrphans() {
  for (;;) {
    const std::vector<pid_t> orphans = Children();
    if (orphans.empty()) return;
    for (pid_t pid : orphans) kill(pid, SIGKILL);
    for (pid_t pid : orphans) {
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
}

}  // namespace

void ServeForksIfAsked() {
  const char* fds = std::getenv("STACKCHECK_EXEC_SERVER");
  if (fds == nullptr) return;
  const std::vector<std::string> pair = absl::StrSplit(fds, ',');
  int in = -1, out = -1;
  if (pair.size() != 2 || !absl::SimpleAtoi(pair[0], &in) || !absl::SimpleAtoi(pair[1], &out)) {
    std::fprintf(stderr, "stackcheck exec: bad STACKCHECK_EXEC_SERVER '%s'\n", fds);
    _exit(2);
  }
  unsetenv("STACKCHECK_EXEC_SERVER");
  // Work every execution would repeat, done once before the forks: loading
  // the nvptx plugin (libgomp dlopens it by this name at the first target
  // construct, and then finds it loaded) with its symbols bound.
  // Only into an OpenMP program: the plugin would bring libgomp with it.
  if (dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr) {
    dlopen("libgomp-plugin-nvptx.so.1", RTLD_NOW | RTLD_LOCAL);
  }
  // The server waits for each execution, which it cannot with SIGCHLD
  // ignored (inherited from a parent: children are reaped at once and
  // waitpid fails). The program's own disposition is restored in each
  // execution.
  struct sigaction program_sigchld {};
  sigaction(SIGCHLD, nullptr, &program_sigchld);
  signal(SIGCHLD, SIG_DFL);
  // Orphans of an execution come to this server, not to init, so that none
  // outlives it (EndOrphans). Best effort: without it they go to init alive.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  std::string request;
  while (ReadLine(in, &request)) {
    const std::vector<std::string> fields = absl::StrSplit(request, '\t');
    const pid_t child = Real().fork();
    if (child < 0) {
      WriteLine(out, "status -1");
      continue;
    }
    if (child == 0) {
      close(in);
      close(out);
      sigaction(SIGCHLD, &program_sigchld, nullptr);
      PinToThisCpu();
      for (std::size_t i = 1; i < fields.size(); ++i) {
        const std::size_t eq = fields[i].find('=');
        if (eq == std::string::npos) continue;
        setenv(fields[i].substr(0, eq).c_str(), fields[i].substr(eq + 1).c_str(), 1);
      }
      const int output = open(fields[0].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (output >= 0) dup2(output, 1), dup2(output, 2), close(output);
      return;  // the execution: on to the program's main, under control
    }
    WriteLine(out, absl::StrCat("pid ", child));
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
      if (errno != EINTR) {
        status = -1;  // not ours to wait for: said, never spun on
        break;
      }
    }
    EndOrphans();
    WriteLine(out, absl::StrCat("status ", status));
  }
  _exit(0);
}

}  // namespace stackcheck::program
