// `stackcheck policies`: the stack-cache policies this build knows, one line
// each with what it models.
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "core/policies/registry.h"

namespace stackcheck::cli {
namespace {

int RunPolicies(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("policies takes no arguments");
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
