#include "cli/command.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"
#include "properties/quoted_text.h"

namespace stackcheck::cli {
namespace {

std::vector<Command>& Registry() {
  static auto* const commands = new std::vector<Command>();
  return *commands;
}

std::string& MutableLastError() {
  static auto* const last = new std::string();
  return *last;
}

}  // namespace

bool RegisterCommand(const Command& command) {
  Registry().push_back(command);
  return true;
}

const std::vector<Command>& AllCommands() { return Registry(); }

const Command* FindCommand(absl::string_view name) {
  for (const Command& c : Registry()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

int UsageError(absl::string_view message) {
  MutableLastError() = properties::PrintableMessage(message);
  absl::FPrintF(stderr, "stackcheck: %s (see stackcheck --help)\n", MutableLastError());
  return kExitUsage;
}

int RunError(absl::string_view message, int rc) {
  MutableLastError() = properties::PrintableMessage(message);
  absl::FPrintF(stderr, "stackcheck: %s\n", MutableLastError());
  return rc;
}

const std::string& LastError() { return MutableLastError(); }

}  // namespace stackcheck::cli
