// `stackcheck replay FILE|TOKEN [--format text|chrome|steer] [--out PATH]`:
// re-executes a recorded failure exactly (same case, modes, schedule, policy)
// and prints its timeline and the violated property, or writes its Chrome /
// Perfetto trace. Exit 0 when the recorded property is violated again (and the
// trace digest matches, when the file records one), 1 when not, 2 on bad input.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/exec_replay.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "properties/atomic_file.h"
#include "properties/explore.h"
#include "properties/json_writer.h"
#include "properties/known_bugs.h"
#include "properties/program/program_replay.h"
#include "properties/quoted_text.h"
#include "properties/replay_file.h"
#include "sim/trace/chrome_trace.h"
#include "sim/trace/timeline.h"

ABSL_FLAG(std::string, format, "text",
          "replay: output format, text (timeline), chrome (Perfetto JSON), or steer (an exec "
          "replay's call order, for the observe preload on the real driver)");
ABSL_FLAG(std::string, out, "", "replay: write the trace to this file instead of stdout");
ABSL_FLAG(std::string, save, "",
          "replay: when the violation recurs, write it as a replay file (scenario, schedule, "
          "trace digest and fingerprint: a regression corpus entry) to this path");

namespace stackcheck::cli {
namespace {

using properties::ReplayRecord;

// The command line's faults, before anything is read or run.
absl::Status CheckRequest(const std::vector<std::string>& args, const std::string& format,
                          const std::string& out_path, const std::string& save_path) {
  if (args.empty() || args.size() > 2 || (args.size() == 2 && !properties::IsExecReplay(args[0]))) {
    return absl::InvalidArgumentError(
        "usage: replay FILE|TOKEN [--format text|chrome|steer] [--out PATH] [--save PATH]; "
        "a real program's (exec): replay FILE|TOKEN -- PROGRAM");
  }
  if (format != "text" && format != "chrome" && format != "steer") {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--format must be text, chrome or steer, not '%s'", properties::Quoted(format)));
  }
  if (!out_path.empty()) {
    std::error_code ec;
    if (std::filesystem::equivalent(args[0], out_path, ec)) {
      return absl::InvalidArgumentError(
          "--out names the replay file itself; writing the trace there "
          "would destroy it");
    }
    if (out_path == save_path) {
      return absl::InvalidArgumentError("--out and --save name the same file");
    }
  }
  if (properties::IsExecReplay(args[0]) && !save_path.empty()) {
    return absl::InvalidArgumentError(
        "--save is for a model's replay, not a real program's (exec)");
  }
  return absl::OkStatus();
}

properties::ExploreSpec ReplaySpec(const ReplayRecord& record, const PolicyInfo& policy) {
  properties::ExploreSpec spec;
  spec.test_case = record.test_case;
  spec.policy = &policy;
  // The same monitors the shrinker used.
  spec.monitors = properties::MonitorSelection::RecordedProperty(record.property);
  // Strict: a value out of range or left over is bad input naming its step,
  // never some other interleaving.
  spec.strategy = "replay";
  spec.keep_trace = true;
  // A NEW bug's file was shrunk with the known bugs passed; replay it so. A
  // known bug's or an accepted deviation's was not: passing known violations
  // would pass the very one the file records.
  sim::Violation recorded;
  recorded.property = record.property;
  recorded.fingerprint = record.fingerprint;
  spec.pass_known =
      !record.fingerprint.empty() && !properties::IsKnownViolation(record.policy, recorded);
  return spec;
}

// What the replay met against what its file recorded.
struct Recurrence {
  const sim::Violation* violation = nullptr;  // the replay's first, if any
  bool recurred = false;
  bool digest_ok = false;
};

Recurrence RecurrenceOf(const ReplayRecord& record, const properties::ExploreReport& e) {
  Recurrence r;
  r.violation = e.first() != nullptr ? &e.first()->violation : nullptr;
  r.recurred = r.violation != nullptr && r.violation->property == record.property &&
               (record.fingerprint.empty() || r.violation->fingerprint == record.fingerprint);
  r.digest_ok = !record.digest.has_value() || *record.digest == e.digest;
  return r;
}

// `summary`: the text lines for people too, not only the trace.
void ReportRecurrence(const ReplayRecord& record, const properties::ExploreReport& e,
                      const Recurrence& r, bool summary, ReportSink& report) {
  auto text = [summary](std::string s) { return summary ? s : std::string(); };
  report.Fields(text(absl::StrFormat("\npolicy %s, property %s: %s", record.policy, record.property,
                                     r.recurred ? "VIOLATED again" : "did NOT recur")),
                [&](properties::JsonWriter& j) {
                  j.Key("policy").String(record.policy);
                  j.Key("property").String(record.property);
                  j.Key("recurred").Bool(r.recurred);
                });
  if (const sim::Violation* violation = r.violation; violation != nullptr) {
    report.Fields(text(absl::StrFormat("violation: %s: %s\nfingerprint: %s", violation->property,
                                       violation->message, violation->fingerprint)),
                  [violation](properties::JsonWriter& j) {
                    j.Key("violation").BeginObject();
                    j.Key("property").String(violation->property);
                    j.Key("message").String(violation->message);
                    j.Key("event_index").Uint(violation->event_index);
                    j.Key("fingerprint").String(violation->fingerprint);
                    j.EndObject();
                  });
    if (summary && !record.fingerprint.empty() && violation->fingerprint != record.fingerprint) {
      report.Note(absl::StrCat("the recorded fingerprint was: ", record.fingerprint));
    }
  }
  report.Fields(text(r.digest_ok ? ""
                                 : absl::StrFormat("the trace differs from the recorded one "
                                                   "(digest %016x, recorded %016x)",
                                                   e.digest, *record.digest)),
                [&](properties::JsonWriter& j) {
                  j.Key("digest_matches").Bool(r.digest_ok);
                  j.Key("digest").String(absl::StrFormat("%016x", e.digest));
                  j.Key("steps").Uint(e.steps);
                });
}

// --save: the record with this replay's digest and fingerprint, when the
// violation recurred. Fails only when the file cannot be written.
absl::Status SaveRecurrence(const std::string& save_path, const ReplayRecord& record,
                            const properties::ExploreReport& e, const Recurrence& r,
                            ReportSink& report) {
  if (!r.recurred) {
    report.Note(absl::StrCat("not saved to ", save_path, ": the violation did not recur"));
    return absl::OkStatus();
  }
  ReplayRecord saved = record;
  saved.digest = e.digest;
  saved.fingerprint = r.violation->fingerprint;
  if (absl::Status s = properties::WriteReplayFile(save_path, saved); !s.ok()) return s;
  report.Fields(
      absl::StrCat("replay file written to ", save_path),
      [&save_path](properties::JsonWriter& j) { j.Key("replay_file").String(save_path); });
  return absl::OkStatus();
}

// A model's replay: the recorded case re-executed on the simulator.
int ReplayModel(const std::string& path, const std::string& format, const std::string& out_path,
                const std::string& save_path) {
  absl::StatusOr<ReplayRecord> record = properties::LoadReplay(path);
  if (!record.ok()) return UsageError(record.status().message());
  const PolicyInfo* policy = FindPolicy(record->policy);
  if (policy == nullptr) {
    return UsageError(
        absl::StrFormat("unknown policy '%s' in the replay", properties::Quoted(record->policy)));
  }
  const properties::ExploreReport e = properties::Explore(ReplaySpec(*record, *policy));
  if (absl::IsInvalidArgument(e.status)) return UsageError(e.status.message());
  if (!e.status.ok()) return RunError(absl::StrCat("replay failed: ", e.status.ToString()));
  const Recurrence r = RecurrenceOf(*record, e);

  const std::string trace = format == "chrome"
                                ? sim::ChromeTraceJson(e.trace, e.actor_names, r.violation)
                                : sim::Timeline(e.trace, e.actor_names, r.violation);
  if (!out_path.empty()) {
    if (absl::Status s = properties::WriteFileAtomically(out_path, trace); !s.ok()) {
      return UsageError(absl::StrFormat("cannot write --out: %s", s.message()));
    }
  }

  // Text: the trace on stdout unless written to --out, then (for a
  // timeline, or a trace written) what recurred.
  ReportSink report(absl::GetFlag(FLAGS_json), "replay");
  if (out_path.empty()) report.Note(absl::StripSuffix(trace, "\n"));
  ReportRecurrence(*record, e, r, format == "text" || !out_path.empty(), report);
  if (!save_path.empty()) {
    if (absl::Status s = SaveRecurrence(save_path, *record, e, r, report); !s.ok()) {
      return UsageError(absl::StrFormat("cannot write --save: %s", s.message()));
    }
  }
  if (!out_path.empty()) {
    report.Fields(absl::StrCat("trace written to ", out_path),
                  [&out_path](properties::JsonWriter& j) { j.Key("trace_file").String(out_path); });
  }
  return report.Finish(r.recurred && r.digest_ok ? kExitOk : kExitMismatch);
}

int RunReplay(const std::vector<std::string>& args) {
  const std::string format = absl::GetFlag(FLAGS_format);
  const std::string out_path = absl::GetFlag(FLAGS_out);
  const std::string save_path = absl::GetFlag(FLAGS_save);
  if (absl::Status s = CheckRequest(args, format, out_path, save_path); !s.ok()) {
    return UsageError(s.message());
  }
  // A real program's counterexample (`exec`) replays by running it again.
  if (properties::IsExecReplay(args[0])) {
    return ReplayExec(args[0], args.size() == 2 ? args[1] : "", format, out_path);
  }
  if (format == "steer") {
    return UsageError("--format steer is for a real program's replay (exec), not a model's");
  }
  return ReplayModel(args[0], format, out_path, save_path);
}

const bool registered = RegisterCommand(
    {"replay",
     "replay FILE|TOKEN [--format text|chrome|steer] [--out PATH] [--save PATH] "
     "[-- PROGRAM, for a real program's]",
     "re-execute a recorded failure: timeline (or Perfetto trace) and the violation", &RunReplay});

}  // namespace
}  // namespace stackcheck::cli
