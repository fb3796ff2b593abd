#include "cli/exec_replay.h"

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/interrupt.h"
#include "cli/report_sink.h"
#include "properties/atomic_file.h"
#include "properties/json_writer.h"
#include "properties/program/explore_program.h"
#include "properties/program/program_finding.h"

ABSL_DECLARE_FLAG(std::string, libcuda);
ABSL_DECLARE_FLAG(int, exec_watchdog_s);

namespace stackcheck::cli {
namespace {

using properties::ProgramReplayReport;

// `text` to `out_path`, or stdout when it is "".
int Emit(const std::string& text, const std::string& out_path) {
  if (out_path.empty()) {
    absl::PrintF("%s", text);
    return kExitOk;
  }
  if (absl::Status s = properties::WriteFileAtomically(out_path, text); !s.ok()) {
    return RunError(absl::StrCat("cannot write ", out_path, ": ", s.message()));
  }
  return kExitOk;
}

int ReplayJson(const ProgramReplayReport& r, int rc) {
  // One JSON object, as every command's --json gives.
  ReportSink report(/*json=*/true, "replay");
  report.Fields("", [&](properties::JsonWriter& j) {
    j.Key("program").String(r.replay.program);
    j.Key("args").BeginArray();
    for (const std::string& a : r.replay.args) j.String(a);
    j.EndArray();
    j.Key("faults").String(r.replay.faults);
    j.Key("property").String(r.replay.property);
    j.Key("recurred").Bool(r.recurred);
    j.Key("outcome").String(properties::Describe(r.outcome));
    j.Key("fingerprint").String(properties::ViolationOf(r.outcome).fingerprint);
    j.Key("digest_matches").Bool(r.same_digest);
    j.Key("digest").String(absl::StrFormat("%016x", r.outcome.report.digest));
    j.Key("recorded_digest").String(absl::StrFormat("%016x", r.replay.digest));
  });
  return report.Finish(rc);
}

}  // namespace

int ReplayExec(const std::string& path_or_token, const std::string& program_name,
               const std::string& format, const std::string& out_path) {
  absl::StatusOr<std::string> lib = properties::FindLibcuda(absl::GetFlag(FLAGS_libcuda));
  if (!lib.ok()) return UsageError(lib.status().message());
  properties::ProgramReplaySpec spec;
  spec.libcuda = *lib;
  spec.path_or_token = path_or_token;
  spec.program = program_name;
  spec.watchdog_s = absl::GetFlag(FLAGS_exec_watchdog_s);
  if (spec.watchdog_s < 1 || spec.watchdog_s > 3600) {
    return UsageError("--exec_watchdog_s must be in [1, 3600]");
  }
  spec.interrupt = StopOnSignals();
  spec.chrome_trace = format == "chrome";
  absl::StatusOr<ProgramReplayReport> r = properties::ReplayProgram(spec);
  if (absl::IsInvalidArgument(r.status())) return UsageError(r.status().message());
  if (!r.ok()) return RunError(r.status().message());
  if (!r->identity_recorded) {
    absl::FPrintF(stderr,
                  "stackcheck: the replay records no program identity (an older file); "
                  "running %s as named\n",
                  r->replay.program);
  }
  if (r->stopped) {
    absl::FPrintF(stderr, "stackcheck: replay stopped by signal %d\n", CaughtSignal());
    return 128 + CaughtSignal();
  }
  const int rc = r->same_digest && r->recurred ? kExitOk : kExitMismatch;
  if (format == "steer") {
    // Written only from a replay that reproduced its recording.
    if (!r->same_digest) {
      return RunError(absl::StrFormat("the replay did not reproduce (%s); no steering written",
                                      properties::Describe(r->outcome)));
    }
    std::string text =
        absl::StrCat("# stackcheck steering: ", r->replay.program, " ",
                     absl::StrJoin(r->replay.args, " "), "; ", r->replay.property, "\n");
    for (const std::string& line : r->steering) absl::StrAppend(&text, line, "\n");
    return Emit(text, out_path);
  }
  if (format == "chrome") {
    if (r->outcome.report.chrome_trace.empty()) {
      return RunError(
          absl::StrCat("the replay left no trace (", properties::Describe(r->outcome), ")"));
    }
    if (int e = Emit(r->outcome.report.chrome_trace + "\n", out_path); e != kExitOk) return e;
    return rc;
  }
  if (absl::GetFlag(FLAGS_json)) return ReplayJson(*r, rc);
  absl::PrintF("replay of %s %s (faults: %s)\n", r->replay.program,
               absl::StrJoin(r->replay.args, " "),
               r->replay.faults.empty() ? "none" : r->replay.faults);
  absl::PrintF("%s\n%s", properties::Describe(r->outcome),
               properties::FormatOutcome(r->outcome, 1u << 30));
  absl::PrintF("%s\n", r->same_digest
                           ? "same trace digest as recorded"
                           : absl::StrFormat("DIGEST DIFFERS: recorded %016x, got %016x",
                                             r->replay.digest, r->outcome.report.digest));
  return rc;
}

}  // namespace stackcheck::cli
