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
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/cmd_exec.h"
#include "cli/command.h"
#include "cli/exec_replay_file.h"
#include "cli/common_flags.h"
#include "core/policies/registry.h"
#include "properties/atomic_file.h"
#include "properties/explore.h"
#include "properties/known_bugs.h"
#include "properties/json_writer.h"
#include "properties/quoted_text.h"
#include "properties/replay_file.h"
#include "sim/trace/chrome_trace.h"
#include "sim/trace/timeline.h"

ABSL_FLAG(std::string, format, "text",
          "replay: output format, text (timeline), chrome (Perfetto JSON), or steer (an exec "
          "replay's call order, for the observe preload on the real driver)");
ABSL_FLAG(std::string, out, "", "replay: write the trace to this file instead of stdout");

namespace stackcheck::cli {
namespace {

using properties::ReplayRecord;

int RunReplay(const std::vector<std::string>& args) {
  if (args.size() != 1) return UsageError("usage: replay FILE|TOKEN [--format text|chrome|steer] [--out PATH]");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "chrome" && format != "steer") {
    return UsageError(absl::StrFormat("--format must be text, chrome or steer, not '%s'",
                                      properties::Quoted(format)));
  }
  const std::string out_path = absl::GetFlag(FLAGS_out);
  if (!out_path.empty()) {
    std::error_code ec;
    if (std::filesystem::equivalent(args[0], out_path, ec)) {
      return UsageError("--out names the replay file itself; writing the trace there "
                        "would destroy it");
    }
  }
  // A real program's counterexample (`exec`) replays by running it again.
  if (IsExecReplay(args[0])) return ReplayExec(args[0], format, out_path);
  if (format == "steer") {
    return UsageError("--format steer is for a real program's replay (exec), not a model's");
  }
  absl::StatusOr<ReplayRecord> record = properties::LoadReplay(args[0]);
  if (!record.ok()) return UsageError(record.status().message());
  const PolicyInfo* policy = FindPolicy(record->policy);
  if (policy == nullptr) {
    return UsageError(absl::StrFormat("unknown policy '%s' in the replay",
                                      properties::Quoted(record->policy)));
  }
  properties::ExploreSpec spec;
  spec.test_case = record->test_case;
  spec.policy = policy;
  // The same monitors the shrinker used.
  spec.monitors = properties::MonitorSelection::RecordedProperty(record->property);
  // Strict: a value out of range or left over is bad input naming its step,
  // never some other interleaving.
  spec.strategy = "replay";
  spec.keep_trace = true;
  // A NEW bug's file was shrunk with the known bugs passed; replay it so.
  spec.pass_known = !record->fingerprint.empty() &&
                    !properties::IsKnownBug(record->policy, record->fingerprint);
  properties::ExploreReport e = properties::Explore(spec);
  if (absl::IsInvalidArgument(e.status)) return UsageError(e.status.message());
  if (!e.status.ok()) return RunError(absl::StrCat("replay failed: ", e.status.ToString()));
  const sim::Violation* violation = e.first() != nullptr ? &e.first()->violation : nullptr;
  const bool recurred = violation != nullptr && violation->property == record->property &&
                        (record->fingerprint.empty() ||
                         violation->fingerprint == record->fingerprint);
  const bool digest_ok = !record->digest.has_value() || *record->digest == e.digest;

  std::string trace;
  if (format == "chrome") {
    trace = sim::ChromeTraceJson(e.trace, e.actor_names, violation);
  } else {
    trace = sim::Timeline(e.trace, e.actor_names, violation);
  }
  if (!out_path.empty()) {
    if (absl::Status s = properties::WriteFileAtomically(out_path, trace); !s.ok()) {
      return UsageError(absl::StrFormat("cannot write --out: %s", s.message()));
    }
  }

  if (absl::GetFlag(FLAGS_json)) {
    properties::JsonWriter json;
    json.BeginObject();
    json.Key("command").String("replay");
    json.Key("policy").String(record->policy);
    json.Key("property").String(record->property);
    json.Key("recurred").Bool(recurred);
    json.Key("digest_matches").Bool(digest_ok);
    json.Key("digest").String(absl::StrFormat("%016x", e.digest));
    json.Key("steps").Uint(e.steps);
    if (violation != nullptr) {
      json.Key("violation").BeginObject();
      json.Key("property").String(violation->property);
      json.Key("message").String(violation->message);
      json.Key("event_index").Uint(violation->event_index);
      json.Key("fingerprint").String(violation->fingerprint);
      json.EndObject();
    }
    if (!out_path.empty()) json.Key("trace_file").String(out_path);
    json.EndObject();
    PrintJson(json);
  } else {
    if (out_path.empty()) absl::PrintF("%s", trace);
    if (format == "text" || !out_path.empty()) {
      absl::PrintF("\npolicy %s, property %s: %s\n", record->policy, record->property,
                   recurred ? "VIOLATED again" : "did NOT recur");
      if (violation != nullptr) {
        absl::PrintF("violation: %s: %s\n", violation->property, violation->message);
        absl::PrintF("fingerprint: %s\n", violation->fingerprint);
      }
      if (violation != nullptr && !record->fingerprint.empty() &&
          violation->fingerprint != record->fingerprint) {
        absl::PrintF("the recorded fingerprint was: %s\n", record->fingerprint);
      }
      if (!digest_ok) {
        absl::PrintF("the trace differs from the recorded one (digest %016x, recorded %016x)\n",
                     e.digest, *record->digest);
      }
      if (!out_path.empty()) absl::PrintF("trace written to %s\n", out_path);
    }
  }
  return recurred && digest_ok ? kExitOk : kExitMismatch;
}

const bool registered = RegisterCommand(
    {"replay", "replay FILE|TOKEN [--format text|chrome|steer] [--out PATH]",
     "re-execute a recorded failure: timeline (or Perfetto trace) and the violation",
     &RunReplay});

}  // namespace
}  // namespace stackcheck::cli
