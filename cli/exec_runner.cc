#include "cli/exec_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stackcheck::cli {
namespace {

namespace fs = std::filesystem;

bool Readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string Tail(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  return s.size() > bytes ? s.substr(s.size() - bytes) : s;
}

// The child's environment: ours, with the run's settings on top.
std::vector<std::string> Environment(const ProgramUnderTest& p, const RunSettings& s,
                                     const std::string& result) {
  std::vector<std::string> env;
  std::string preload = p.libcuda;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("STACKCHECK_EXEC", 0) == 0) continue;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      preload = absl::StrCat(p.libcuda, ":", entry.substr(11));
      continue;
    }
    env.push_back(entry);
  }
  env.push_back(absl::StrCat("LD_PRELOAD=", preload));
  env.push_back("STACKCHECK_EXEC=1");
  env.push_back(absl::StrCat("STACKCHECK_EXEC_STRATEGY=", s.strategy));
  env.push_back(absl::StrCat("STACKCHECK_EXEC_SEED=", s.seed));
  env.push_back(absl::StrCat("STACKCHECK_EXEC_SCHEDULE=", absl::StrJoin(s.schedule, ",")));
  env.push_back(absl::StrCat("STACKCHECK_EXEC_FAULTS=", libcuda::FormatFaults(s.faults)));
  env.push_back(absl::StrCat("STACKCHECK_EXEC_RESULT=", result));
  env.push_back(absl::StrCat("STACKCHECK_EXEC_WATCHDOG_S=", p.watchdog_s));
  // Offloading is the point: a plugin that fails must not fall back to the
  // host. One thread runs at a time, so libgomp's spinning before it sleeps
  // in a futex only burns time.
  if (std::getenv("OMP_TARGET_OFFLOAD") == nullptr) env.push_back("OMP_TARGET_OFFLOAD=MANDATORY");
  if (std::getenv("GOMP_SPINCOUNT") == nullptr) env.push_back("GOMP_SPINCOUNT=0");
  return env;
}

}  // namespace

absl::StatusOr<std::string> FindLibcuda(const std::string& flag) {
  if (!flag.empty()) {
    if (!Readable(flag)) return absl::NotFoundError(absl::StrCat("--libcuda: no file ", flag));
    return fs::absolute(flag).string();
  }
  if (const char* env = std::getenv("STACKCHECK_LIBCUDA"); env != nullptr && *env != '\0') {
    if (!Readable(env)) return absl::NotFoundError(absl::StrCat("$STACKCHECK_LIBCUDA: no file ", env));
    return fs::absolute(env).string();
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = self.parent_path();
    for (const fs::path& candidate :
         {dir / ".." / "sim" / "libcuda" / "libcuda.so.1",
          fs::path(self.string() + ".runfiles") / "__main__" / "sim" / "libcuda" / "libcuda.so.1"}) {
      if (Readable(candidate.string())) return fs::canonical(candidate, ec).string();
    }
  }
  return absl::NotFoundError(
      "cannot find the simulated libcuda.so.1: build //sim/libcuda:libcuda.so.1 and pass "
      "--libcuda PATH (or set STACKCHECK_LIBCUDA)");
}

absl::StatusOr<RunOutcome> RunOnce(const ProgramUnderTest& p, const RunSettings& s) {
  const std::string result = absl::StrCat(p.scratch, "/result.json");
  const std::string output = absl::StrCat(p.scratch, "/output.txt");
  std::remove(result.c_str());
  const std::vector<std::string> env = Environment(p, s, result);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<char*> argv{const_cast<char*>(p.program.c_str())};
  for (const std::string& a : p.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) return absl::ResourceExhaustedError("fork failed");
  if (pid == 0) {
    const int out = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (out >= 0) dup2(out, 1), dup2(out, 2);
    if (in >= 0) dup2(in, 0);
    execve(p.program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  RunOutcome outcome;
  int status = 0;
  // The library's own watchdog ends a stuck run; this margin covers a
  // process stuck where even that cannot help (the simulator's thread).
  const auto deadline = start + std::chrono::seconds(p.watchdog_s + 30);
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.kind = RunOutcome::Kind::kTimedOut;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.output = Tail(output, 8192);
  if (outcome.kind == RunOutcome::Kind::kTimedOut) return outcome;
  outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
  if (Readable(result)) {
    absl::StatusOr<libcuda::ExecReport> report = libcuda::ReadReport(result);
    if (!report.ok()) return report.status();
    outcome.report = *std::move(report);
    return outcome;
  }
  outcome.kind = WIFSIGNALED(status) ? RunOutcome::Kind::kCrashed : RunOutcome::Kind::kStartFailed;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && outcome.output.empty()) {
    outcome.output = absl::StrCat("cannot execute ", p.program);
  }
  return outcome;
}

}  // namespace stackcheck::cli
