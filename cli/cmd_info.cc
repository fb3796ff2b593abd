// `stackcheck info`: the version, and the backends and policies this build knows.
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "core/policies/registry.h"
#include "core/version.h"

namespace stackcheck::cli {
namespace {

int RunInfo(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("info takes no arguments");
  absl::PrintF("stackcheck %s\n", kVersion);
  absl::PrintF("backends:\n");
  absl::PrintF("  %-8s %s\n", "sim", "deterministic fake GPU: fibers, virtual time, explored schedules");
  absl::PrintF("  %-8s %s\n", "cuda", "CUDA Driver API via dlopen(libcuda.so.1), real host threads");
  absl::PrintF("policies:\n");
  for (const PolicyInfo& policy : AllPolicies()) {
    absl::PrintF("  %-20s %s\n", policy.name, policy.summary);
  }
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"info", "info", "print the version, backends and policies", &RunInfo});

}  // namespace
}  // namespace stackcheck::cli
