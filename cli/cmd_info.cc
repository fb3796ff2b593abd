// `stackcheck info`: the version, and the backends and policies this build
// knows, described once for text and --json (ReportSink).
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "core/version.h"
#include "properties/json_writer.h"

namespace stackcheck::cli {
namespace {

constexpr std::pair<const char*, const char*> kBackends[] = {
    {"sim", "deterministic fake GPU: fibers, virtual time, explored schedules"},
    {"cuda", "CUDA Driver API via dlopen(libcuda.so.1), real host threads"},
};

int RunInfo(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("info takes no arguments");
  ReportSink out(absl::GetFlag(FLAGS_json), "info");
  out.Custom("version", absl::StrCat("stackcheck ", kVersion),
             [](properties::JsonWriter& j) { j.String(kVersion); });
  std::string backends = "backends:";
  for (const auto& [name, what] : kBackends) {
    absl::StrAppendFormat(&backends, "\n  %-8s %s", name, what);
  }
  out.Custom("backends", backends, [](properties::JsonWriter& j) {
    j.BeginArray();
    for (const auto& [name, what] : kBackends) {
      j.BeginObject().Key("name").String(name).Key("summary").String(what).EndObject();
    }
    j.EndArray();
  });
  std::string policies = "policies:";
  for (const PolicyInfo& policy : AllPolicies()) {
    absl::StrAppendFormat(&policies, "\n  %-20s %s", policy.name, policy.summary);
  }
  out.Custom("policies", policies, [](properties::JsonWriter& j) {
    j.BeginArray();
    for (const PolicyInfo& policy : AllPolicies()) j.String(policy.name);
    j.EndArray();
  });
  return out.Finish(kExitOk);
}

const bool registered =
    RegisterCommand({"info", "info", "print the version, backends and policies", &RunInfo});

}  // namespace
}  // namespace stackcheck::cli
