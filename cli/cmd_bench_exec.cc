// `stackcheck bench exec [--executions=N] -- PROGRAM [ARGS]`: how fast `exec`
// explores a real program: executions per second of wall time and CPU time
// per execution (the program's processes included: fork, the dynamic
// loader, libgomp's start-up, the simulation), with the fork server and
// without it. Run it pinned to one core (taskset -c 0) for the per-core
// figure; docs/make_figures.py does, on tests/programs/threads_regions.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/interrupt.h"
#include "cli/report_sink.h"
#include "properties/json_writer.h"
#include "properties/program/program_run.h"
#include "properties/program/scratch_directory.h"

ABSL_DECLARE_FLAG(std::string, libcuda);

namespace stackcheck::cli {
namespace {

namespace fs = std::filesystem;
using properties::ProgramUnderTest;
using properties::RunOnce;
using properties::RunOutcome;
using properties::RunSettings;

double ChildrenCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Rate {
  std::uint64_t executions = 0;
  double seconds = 0;
  double cpu_ms = 0;  // per execution; the fork server's children are not
                      // ours, so with it this is left at 0
  std::uint64_t violations = 0;
};

absl::StatusOr<Rate> Measure(ProgramUnderTest program, bool fork_server, std::uint64_t n) {
  program.fork_server = fork_server;
  Rate r;
  const double cpu_before = ChildrenCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < n; ++i) {
    RunSettings s;
    s.seed = 1 + i;
    absl::StatusOr<RunOutcome> o = RunOnce(program, s);
    if (!o.ok()) return o.status();
    if (o->kind == RunOutcome::Kind::kStopped) break;
    if (o->kind == RunOutcome::Kind::kStartFailed) {
      return absl::FailedPreconditionError(absl::StrCat("the program did not start: ", o->output));
    }
    ++r.executions;
    r.violations += o->kind != RunOutcome::Kind::kFinished || o->report.verdict != "clean";
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!fork_server) r.cpu_ms = (ChildrenCpuSeconds() - cpu_before) * 1000 / n;
  return r;
}

int RunBenchExec(const std::vector<std::string>& args) {
  if (args.empty()) return UsageError("usage: bench exec [--executions=N] -- PROGRAM [ARGS]");
  absl::StatusOr<std::string> lib = properties::FindLibcuda(absl::GetFlag(FLAGS_libcuda));
  if (!lib.ok()) return UsageError(lib.status().message());
  std::uint64_t n = absl::GetFlag(FLAGS_executions);
  if (n == 0) n = 200;
  absl::StatusOr<properties::ScratchDirectory> scratch = properties::ScratchDirectory::Make();
  if (!scratch.ok()) return RunError(scratch.status().message());
  const RemovedOnAbort scratch_on_abort(scratch->path());
  ProgramUnderTest program{*lib, fs::absolute(args[0]).string(),
                           std::vector<std::string>(args.begin() + 1, args.end()), 20,
                           scratch->path()};
  // A signal stops the execution in progress and the benchmark with it: a
  // partial rate would be a wrong figure, so none is printed.
  program.stop = StopOnSignals();
  absl::StatusOr<Rate> plain = Measure(program, false, n);
  if (!plain.ok()) return RunError(plain.status().message());
  absl::StatusOr<Rate> served = Measure(program, true, n);
  if (!served.ok()) return RunError(served.status().message());
  if (CaughtSignal() != 0) {
    absl::FPrintF(stderr, "stackcheck: bench exec interrupted by signal %d; no figure\n",
                  CaughtSignal());
    return 128 + CaughtSignal();
  }
  const double plain_rate = plain->executions / plain->seconds;
  const double served_rate = served->executions / served->seconds;
  const std::uint64_t violations = plain->violations + served->violations;
  ReportSink out(absl::GetFlag(FLAGS_json), "bench exec");
  out.Fields(absl::StrFormat("bench exec %s: %u executions each way", program.program, n),
             [&](properties::JsonWriter& j) {
               j.Key("program").String(program.program);
               j.Key("executions").Uint(n);
             });
  out.Fields(absl::StrFormat("executions_per_s %.1f   (fork server: the program forked "
                             "before main)",
                             served_rate),
             [&](properties::JsonWriter& j) { j.Key("executions_per_s").Double(served_rate); });
  out.Fields(absl::StrFormat("executions_per_s_no_fork_server %.1f   (%.1f ms of CPU per "
                             "execution, process start included)",
                             plain_rate, plain->cpu_ms),
             [&](properties::JsonWriter& j) {
               j.Key("executions_per_s_no_fork_server").Double(plain_rate);
               j.Key("cpu_ms_per_execution_no_fork_server").Double(plain->cpu_ms);
             });
  out.Fields(violations > 0
                 ? absl::StrFormat("violations: %u (the program should be correct)", violations)
                 : "",
             [&](properties::JsonWriter& j) { j.Key("violations").Uint(violations); });
  return out.Finish(kExitOk);
}

const bool registered = RegisterCommand(
    {"bench exec", "bench exec [--executions=N] -- PROGRAM [ARGS]",
     "exec's speed on a real program: executions/s, CPU per execution", &RunBenchExec});

}  // namespace
}  // namespace stackcheck::cli
