// stackcheck: simulation and model checking for GPU offload runtimes.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/flag_parser.h"
#include "core/version.h"
#include "properties/quoted_text.h"

namespace stackcheck::cli {
namespace {

// With no command, stackcheck runs its main job; until the campaign command is
// linked in, that is the overview of what the tool knows.
constexpr const char* kDefaultCommands[] = {"campaign", "info"};

void PrintHelp() {
  absl::PrintF(
      "stackcheck %s - a simulation and model-checking testbed for GPU offload runtimes\n\n"
      "usage: stackcheck [COMMAND] [ARGS] [--flags]\n\n"
      "commands:\n",
      kVersion);
  for (const Command& c : AllCommands()) {
    // Long usages get their own line so the summaries stay in one column.
    if (absl::string_view(c.usage).size() > 44) {
      absl::PrintF("  %s\n  %-44s %s\n", c.usage, "", c.summary);
    } else {
      absl::PrintF("  %-44s %s\n", c.usage, c.summary);
    }
  }
  absl::PrintF(
      "\nWith no command, runs '%s'. Flags: --name=value or --name value;\n"
      "each command's description lists the flags it reads.\n"
      "Exit codes: 0 all verdicts as expected, 1 a verdict differs or the run failed, "
      "2 usage error.\n",
      FindCommand(kDefaultCommands[0]) ? kDefaultCommands[0] : kDefaultCommands[1]);
}

int Main(int argc, char** argv) {
  // Under `bazel run` the binary starts in its runfiles tree; relative paths
  // on the command line (replay files, --out, --replay_dir) mean the user's
  // directory.
  if (const char* dir = std::getenv("BUILD_WORKING_DIRECTORY"); dir != nullptr && *dir) {
    if (chdir(dir) != 0) return UsageError(absl::StrFormat("cannot enter %s", dir));
  }
  absl::StatusOr<ParsedCommandLine> parsed = ParseFlags(argc, argv);
  if (!parsed.ok()) return UsageError(parsed.status().message());
  if (parsed->help) {
    PrintHelp();
    return kExitOk;
  }
  std::vector<std::string> args = parsed->positional;
  const Command* command = nullptr;
  if (args.empty()) {
    for (const char* name : kDefaultCommands) {
      if ((command = FindCommand(name)) != nullptr) break;
    }
  } else if (args.size() >= 2 &&
             (command = FindCommand(args[0] + " " + args[1])) != nullptr) {
    // A two-word command ("bench launch") beside a one-word one ("bench").
    args.erase(args.begin(), args.begin() + 2);
  } else {
    command = FindCommand(args.front());
    if (command == nullptr) {
      return UsageError(
          absl::StrFormat("unknown command '%s'", properties::Quoted(args.front())));
    }
    args.erase(args.begin());
  }
  if (command == nullptr) return UsageError("no command available");
  std::vector<std::string> names;
  for (const Command& c : AllCommands()) names.emplace_back(c.name);
  if (absl::Status s = CheckFlagsBelong(command->name, *parsed, names); !s.ok()) {
    return UsageError(s.message());
  }
  return command->run(args);
}

}  // namespace
}  // namespace stackcheck::cli

int main(int argc, char** argv) { return stackcheck::cli::Main(argc, argv); }
