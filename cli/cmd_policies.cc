// `stackcheck policies`: the stack-cache policies this build knows, one line
// each with what it models (--json: an array of objects).
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "core/policies/registry.h"
#include "properties/json_writer.h"

namespace stackcheck::cli {
namespace {

int RunPolicies(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("policies takes no arguments");
  if (absl::GetFlag(FLAGS_json)) {
    properties::JsonWriter json;
    json.BeginObject();
    json.Key("command").String("policies");
    json.Key("policies").BeginArray();
    for (const PolicyInfo& policy : AllPolicies()) {
      json.BeginObject();
      json.Key("name").String(policy.name);
      json.Key("summary").String(policy.summary);
      json.Key("run_returns_before_kernel_completes")
          .Bool(policy.accepts_async_completion);
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
    PrintJson(json);
    return kExitOk;
  }
  for (const PolicyInfo& policy : AllPolicies()) {
    absl::PrintF("%-20s %s%s\n", policy.name, policy.summary,
                 policy.accepts_async_completion
                     ? " [run returns before its kernel completes]"
                     : "");
  }
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"policies", "policies", "list the stack-cache policies and what each models",
     &RunPolicies});

}  // namespace
}  // namespace stackcheck::cli
