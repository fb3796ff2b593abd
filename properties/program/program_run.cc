#include "properties/program/program_run.h"

#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stackcheck::properties {
namespace {

namespace fs = std::filesystem;

bool Readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// SIGCHLD as this process found it. exec waits for its children, which it
// cannot with SIGCHLD ignored (inherited from a parent); the program is given
// the disposition back in its process (RestoreProgramSigchld).
const struct sigaction& InheritedSigchld() {
  static const struct sigaction inherited = [] {
    struct sigaction old {};
    sigaction(SIGCHLD, nullptr, &old);
    signal(SIGCHLD, SIG_DFL);
    return old;
  }();
  return inherited;
}

// In a forked child, before execve.
void RestoreProgramSigchld() { sigaction(SIGCHLD, &InheritedSigchld(), nullptr); }

// The last `bytes` of a file, read from there: a program's output can be
// gigabytes.
std::string Tail(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from =
      size > static_cast<std::streamoff>(bytes) ? size - static_cast<std::streamoff>(bytes) : 0;
  in.seekg(from);
  std::string s(static_cast<std::size_t>(size - from), '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

// One execution's settings, as environment variables.
std::vector<std::string> RunVariables(const ProgramUnderTest& p, const RunSettings& s,
                                      const std::string& result) {
  return {absl::StrCat("STACKCHECK_EXEC_STRATEGY=", s.strategy),
          absl::StrCat("STACKCHECK_EXEC_SEED=", s.seed),
          absl::StrCat("STACKCHECK_EXEC_SCHEDULE=", absl::StrJoin(s.schedule, ",")),
          absl::StrCat("STACKCHECK_EXEC_FAULTS=", program::FormatFaults(s.faults)),
          absl::StrCat("STACKCHECK_EXEC_RESULT=", result),
          absl::StrCat("STACKCHECK_EXEC_WATCHDOG_S=", p.watchdog_s),
          absl::StrCat("STACKCHECK_EXEC_CHROME_TRACE=", s.chrome_trace ? 1 : 0)};
}

// The AddressSanitizer runtime this binary runs with, or "" (not built with
// --config=asan). The library built beside it is instrumented too, and in a
// program that is not, ASan's runtime must be the first object loaded: it
// goes first in the program's preload list.
std::string SanitizerRuntime() {
#ifdef STACKCHECK_ASAN
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "/libasan.so") == nullptr) {
          return 0;
        }
        *static_cast<std::string*>(out) = info->dlpi_name;
        return 1;
      },
      &path);
  return path;
#else
  return "";
#endif
}

// The child's environment: ours, with the library preloaded and control on.
std::vector<std::string> BaseEnvironment(const ProgramUnderTest& p) {
  std::vector<std::string> env;
  const std::string asan = SanitizerRuntime();
  std::string preload = asan.empty() ? p.libcuda : absl::StrCat(asan, ":", p.libcuda);
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("STACKCHECK_EXEC", 0) == 0) continue;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      absl::StrAppend(&preload, ":", entry.substr(11));
      continue;
    }
    // The program's own allocations are not ours to judge: LeakSanitizer
    // would end every execution of a program that leaks at exit.
    if (!asan.empty() && entry.rfind("ASAN_OPTIONS=", 0) == 0) continue;
    env.push_back(entry);
  }
  env.push_back(absl::StrCat("LD_PRELOAD=", preload));
  if (!asan.empty()) {
    const char* options = std::getenv("ASAN_OPTIONS");
    env.push_back(absl::StrCat("ASAN_OPTIONS=", options != nullptr ? options : "",
                               options != nullptr && *options != '\0' ? ":" : "",
                               "detect_leaks=0"));
  }
  env.push_back("STACKCHECK_EXEC=1");
  // OMP_TARGET_OFFLOAD is the user's: unset, libgomp falls back to the host
  // where it cannot offload (a finalized device among others), as it does
  // for them on a GPU; exec says when no kernel was launched at all. One
  // thread runs at a time, so libgomp's spinning before it sleeps in a
  // futex only burns time.
  if (std::getenv("GOMP_SPINCOUNT") == nullptr) env.push_back("GOMP_SPINCOUNT=0");
  return env;
}

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (const std::string& s : strings) p.push_back(const_cast<char*>(s.c_str()));
  p.push_back(nullptr);
  return p;
}

// The program started once and forked per execution before its main
// (sim/program/fork_server.h).
class ForkServer {
 public:
  ~ForkServer() {
    if (to_ >= 0) close(to_);
    if (from_ >= 0) close(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  bool Start(const ProgramUnderTest& p) {
    // A server that died must not kill us with SIGPIPE: Run sees the error.
    signal(SIGPIPE, SIG_IGN);
    int request[2], answer[2];
    if (pipe2(request, O_CLOEXEC) != 0) return false;
    if (pipe2(answer, O_CLOEXEC) != 0) return false;
    std::vector<std::string> env = BaseEnvironment(p);
    // Descriptors 3 and 4 in the server. Every symbol bound at load time,
    // once, rather than lazily in each forked execution.
    env.push_back("STACKCHECK_EXEC_SERVER=3,4");
    env.push_back("LD_BIND_NOW=1");
    const std::vector<char*> envp = Pointers(env);
    std::vector<std::string> args{p.program};
    args.insert(args.end(), p.args.begin(), p.args.end());
    const std::vector<char*> argv = Pointers(args);
    InheritedSigchld();
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      RestoreProgramSigchld();
      // Its own process group: a terminal's Ctrl-C reaches stackcheck, which
      // stops the execution in progress itself, not the program directly.
      setpgid(0, 0);
      const int null = open("/dev/null", O_RDWR);
      dup2(null, 0), dup2(null, 1), dup2(null, 2);
      // Moved out of the way first: a pipe may already be 3 or 4.
      const int in = fcntl(request[0], F_DUPFD_CLOEXEC, 10);
      const int out = fcntl(answer[1], F_DUPFD_CLOEXEC, 10);
      dup2(in, 3), dup2(out, 4);  // dup2 clears close-on-exec
      // The server holds 0-4 and nothing else of ours: an execution it forks
      // closes 3 and 4, so the program cannot write a "status" line of its own.
      close_range(5, ~0U, 0);
      execve(p.program.c_str(), argv.data(), envp.data());
      _exit(127);
    }
    close(request[0]);
    close(answer[1]);
    to_ = request[1];
    from_ = answer[0];
    return true;
  }

  // One execution; false if the server is gone (the caller falls back).
  bool Run(const ProgramUnderTest& p, const std::vector<std::string>& vars,
           const std::string& output, RunOutcome* outcome, int* status) {
    std::string line = output;
    for (const std::string& v : vars) absl::StrAppend(&line, "\t", v);
    line += "\n";
    if (write(to_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) return false;
    std::string answer;
    if (!Read(&answer, 10) || answer.rfind("pid ", 0) != 0) return false;
    const pid_t child = std::atoi(answer.c_str() + 4);
    if (!Read(&answer, p.watchdog_s + 30, &p)) {
      kill(child, SIGKILL);
      outcome->kind = Stopping(p) ? RunOutcome::Kind::kStopped : RunOutcome::Kind::kTimedOut;
      if (!Read(&answer, 10)) return false;
    }
    if (answer.rfind("status ", 0) != 0) return false;
    *status = std::atoi(answer.c_str() + 7);
    return true;
  }

 private:
  // A line within `seconds`; false at the deadline, or as soon as `stop_for`
  // (when given) is stopping.
  bool Read(std::string* line, int seconds, const ProgramUnderTest* stop_for = nullptr) {
    line->clear();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
      const std::size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        *line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      if (stop_for != nullptr && Stopping(*stop_for)) return false;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd pfd{from_, POLLIN, 0};
      // In slices, so that a stop is seen within a moment.
      const int slice = stop_for != nullptr ? std::min<int>(left.count(), 50) : left.count();
      if (poll(&pfd, 1, slice) <= 0) continue;
      char chunk[256];
      const ssize_t n = read(from_, chunk, sizeof chunk);
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buffer_;
};

// One server per program and arguments, for the life of the command.
ForkServer* ServerFor(const ProgramUnderTest& p) {
  static auto* servers = new std::map<std::string, std::unique_ptr<ForkServer>>;
  const std::string key =
      absl::StrCat(p.libcuda, "\n", p.program, "\n", absl::StrJoin(p.args, "\n"));
  auto it = servers->find(key);
  if (it == servers->end()) {
    auto server = std::make_unique<ForkServer>();
    if (!server->Start(p)) server.reset();
    it = servers->emplace(key, std::move(server)).first;
  }
  return it->second.get();
}

}  // namespace

bool Stopping(const ProgramUnderTest& p) {
  return (p.stop != nullptr && p.stop->load(std::memory_order_relaxed)) ||
         std::chrono::steady_clock::now() >= p.deadline;
}

absl::StatusOr<std::string> FindLibcuda(const std::string& flag) {
  if (!flag.empty()) {
    if (!Readable(flag)) return absl::NotFoundError(absl::StrCat("--libcuda: no file ", flag));
    return fs::absolute(flag).string();
  }
  if (const char* env = std::getenv("STACKCHECK_LIBCUDA"); env != nullptr && *env != '\0') {
    if (!Readable(env))
      return absl::NotFoundError(absl::StrCat("$STACKCHECK_LIBCUDA: no file ", env));
    return fs::absolute(env).string();
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = self.parent_path();
    // Beside bazel-bin/cli/stackcheck, or in its runfiles (the workspace is
    // named stackcheck in WORKSPACE).
    for (const fs::path& candidate : {dir / ".." / "sim" / "libcuda" / "libcuda.so.1",
                                      fs::path(self.string() + ".runfiles") / "stackcheck" / "sim" /
                                          "libcuda" / "libcuda.so.1"}) {
      if (Readable(candidate.string())) return fs::canonical(candidate, ec).string();
    }
  }
  return absl::NotFoundError(
      "cannot find the simulated libcuda.so.1: build //sim/libcuda:libcuda.so.1 and pass "
      "--libcuda PATH (or set STACKCHECK_LIBCUDA)");
}

// Reads what an ended execution left: its result file, or why there is none.
absl::StatusOr<RunOutcome> Collect(const ProgramUnderTest& p, const std::string& result,
                                   const std::string& output,
                                   std::chrono::steady_clock::time_point start, int status,
                                   RunOutcome outcome);

absl::StatusOr<RunOutcome> RunOnce(const ProgramUnderTest& p, const RunSettings& s) {
  const std::string result = absl::StrCat(p.scratch, "/result.json");
  const std::string output = absl::StrCat(p.scratch, "/output.txt");
  std::remove(result.c_str());
  const std::vector<std::string> vars = RunVariables(p, s, result);
  const auto start = std::chrono::steady_clock::now();
  RunOutcome outcome;
  if (Stopping(p)) {
    outcome.kind = RunOutcome::Kind::kStopped;
    return outcome;
  }
  int status = 0;
  ForkServer* server = p.fork_server ? ServerFor(p) : nullptr;
  if (server != nullptr && server->Run(p, vars, output, &outcome, &status)) {
    return Collect(p, result, output, start, status, std::move(outcome));
  }
  std::vector<std::string> env = BaseEnvironment(p);
  env.insert(env.end(), vars.begin(), vars.end());
  const std::vector<char*> envp = Pointers(env);
  std::vector<std::string> args{p.program};
  args.insert(args.end(), p.args.begin(), p.args.end());
  const std::vector<char*> argv = Pointers(args);
  InheritedSigchld();
  const pid_t pid = fork();
  if (pid < 0) return absl::ResourceExhaustedError("fork failed");
  if (pid == 0) {
    RestoreProgramSigchld();
    setpgid(0, 0);  // as the fork server: signals from the terminal are ours
    const int out = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (out >= 0) dup2(out, 1), dup2(out, 2);
    if (in >= 0) dup2(in, 0);
    close_range(3, ~0U, 0);  // the program gets 0-2 and nothing else of ours
    execve(p.program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  // The library's own watchdog ends a stuck run; this margin covers a
  // process stuck where even that cannot help (the simulator's thread).
  const auto deadline = start + std::chrono::seconds(p.watchdog_s + 30);
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (Stopping(p)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.kind = RunOutcome::Kind::kStopped;
      return outcome;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.kind = RunOutcome::Kind::kTimedOut;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  // What the program forked and left running ends with it: its group is its own.
  kill(-pid, SIGKILL);
  return Collect(p, result, output, start, status, std::move(outcome));
}

absl::StatusOr<RunOutcome> Collect(const ProgramUnderTest& p, const std::string& result,
                                   const std::string& output,
                                   std::chrono::steady_clock::time_point start, int status,
                                   RunOutcome outcome) {
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.output = Tail(output, 8192);
  if (outcome.kind == RunOutcome::Kind::kTimedOut || outcome.kind == RunOutcome::Kind::kStopped) {
    return outcome;
  }
  outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
  if (Readable(result)) {
    absl::StatusOr<program::ExecReport> report = program::ReadReport(result);
    if (!report.ok()) return report.status();
    outcome.report = *std::move(report);
    return outcome;
  }
  outcome.kind = WIFSIGNALED(status) ? RunOutcome::Kind::kCrashed : RunOutcome::Kind::kStartFailed;
  if (WIFEXITED(status) && WEXITSTATUS(status) == program::kInternalErrorStatus) {
    outcome.kind = RunOutcome::Kind::kInternalError;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && outcome.output.empty()) {
    outcome.output = absl::StrCat("cannot execute ", p.program);
  }
  return outcome;
}

}  // namespace stackcheck::properties
