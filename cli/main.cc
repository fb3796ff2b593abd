// stackcheck: simulation and model checking for GPU offload runtimes.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
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
      "2 usage error or bad input, 128+N stopped by signal N (campaign).\n",
      FindCommand(kDefaultCommands[0]) ? kDefaultCommands[0] : kDefaultCommands[1]);
}

// Parses the command line and runs the command; `*name` is set to the
// command's name once it is known.
int Dispatch(int argc, char** argv, std::string* name) {
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
  } else if (args.size() >= 2 && (command = FindCommand(args[0] + " " + args[1])) != nullptr) {
    // A two-word command ("bench launch") beside a one-word one ("bench").
    args.erase(args.begin(), args.begin() + 2);
  } else {
    command = FindCommand(args.front());
    if (command == nullptr) {
      return UsageError(absl::StrFormat("unknown command '%s'", properties::Quoted(args.front())));
    }
    args.erase(args.begin());
  }
  if (command == nullptr) return UsageError("no command available");
  *name = command->name;
  std::vector<std::string> names;
  for (const Command& c : AllCommands()) names.emplace_back(c.name);
  if (absl::Status s = CheckFlagsBelong(command->name, *parsed, names); !s.ok()) {
    return UsageError(s.message());
  }
  return command->run(args);
}

// Whether --json was asked for, even when the command line failed to parse.
bool WantsJson(int argc, char** argv) {
  if (absl::GetFlag(FLAGS_json)) return true;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--json" || arg == "--json=true" || arg == "--json=1") return true;
  }
  return false;
}

int Main(int argc, char** argv) {
  std::string name;
  int rc = Dispatch(argc, argv, &name);
  // With --json, a failure that printed no object still prints one.
  if (rc != kExitOk && WantsJson(argc, argv) && !JsonPrinted()) {
    properties::JsonWriter json;
    json.BeginObject();
    if (!name.empty()) json.Key("command").String(name);
    json.Key("error").String(LastError().empty() ? "failed; see standard error" : LastError());
    PrintJsonResult(json, rc);
  }
  // Output that did not reach its destination (a full disk, a closed pipe)
  // is a failed run, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int error = errno;
    absl::FPrintF(stderr, "stackcheck: error writing standard output: %s\n", std::strerror(error));
    if (rc == kExitOk) rc = kExitMismatch;
  }
  return rc;
}

}  // namespace
}  // namespace stackcheck::cli

int main(int argc, char** argv) { return stackcheck::cli::Main(argc, argv); }
