// `stackcheck info`: the version, and the backends and policies this build
// knows (--json: one object).
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
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
  if (absl::GetFlag(FLAGS_json)) {
    properties::JsonWriter json;
    json.BeginObject();
    json.Key("command").String("info");
    json.Key("version").String(kVersion);
    json.Key("backends").BeginArray();
    for (const auto& [name, what] : kBackends) {
      json.BeginObject().Key("name").String(name).Key("summary").String(what).EndObject();
    }
    json.EndArray();
    json.Key("policies").BeginArray();
    for (const PolicyInfo& policy : AllPolicies()) json.String(policy.name);
    json.EndArray();
    json.EndObject();
    PrintJson(json);
    return kExitOk;
  }
  absl::PrintF("stackcheck %s\n", kVersion);
  absl::PrintF("backends:\n");
  for (const auto& [name, what] : kBackends) absl::PrintF("  %-8s %s\n", name, what);
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
