// `stackcheck policies`: the stack-cache policies this build knows, one line
// each with what it models, described once for text and --json (ReportSink).
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "properties/json_writer.h"

namespace stackcheck::cli {
namespace {

int RunPolicies(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("policies takes no arguments");
  ReportSink out(absl::GetFlag(FLAGS_json), "policies");
  std::vector<std::string> lines;
  for (const PolicyInfo& policy : AllPolicies()) {
    lines.push_back(absl::StrFormat(
        "%-20s %s%s", policy.name, policy.summary,
        policy.accepts_async_completion ? " [run returns before its kernel completes]" : ""));
  }
  out.Custom("policies", absl::StrJoin(lines, "\n"), [](properties::JsonWriter& j) {
    j.BeginArray();
    for (const PolicyInfo& policy : AllPolicies()) {
      j.BeginObject();
      j.Key("name").String(policy.name);
      j.Key("summary").String(policy.summary);
      j.Key("run_returns_before_kernel_completes").Bool(policy.accepts_async_completion);
      j.EndObject();
    }
    j.EndArray();
  });
  return out.Finish(kExitOk);
}

const bool registered = RegisterCommand(
    {"policies", "policies", "list the stack-cache policies and what each models", &RunPolicies});

}  // namespace
}  // namespace stackcheck::cli
