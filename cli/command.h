// The stackcheck command line is a set of subcommands, one file each. A command
// file defines its flags with ABSL_FLAG and registers itself here; the BUILD
// target that holds it is `alwayslink` so registration survives linking.
#ifndef STACKCHECK_CLI_COMMAND_H_
#define STACKCHECK_CLI_COMMAND_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace stackcheck::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;        // every verdict matched its expectation
inline constexpr int kExitMismatch = 1;  // a verdict (or the run) failed
inline constexpr int kExitUsage = 2;     // bad command line or bad input

struct Command {
  const char* name;
  const char* usage;    // e.g. "replay FILE [--format text|chrome]"
  const char* summary;  // one line for --help
  // `args` are the positional arguments after the command name; flags have
  // already been parsed into their ABSL_FLAGs.
  int (*run)(const std::vector<std::string>& args);
};

// Registers at static-initialisation time; returns true so it can initialise
// a namespace-scope bool.
bool RegisterCommand(const Command& command);
const std::vector<Command>& AllCommands();
const Command* FindCommand(absl::string_view name);

// Prints "stackcheck: <message>" on stderr, control bytes escaped and a long
// message cut; returns kExitUsage.
int UsageError(absl::string_view message);
// The same for a run that failed (no driver, a failed write); returns `rc`.
int RunError(absl::string_view message, int rc = kExitMismatch);
// The message of the last UsageError or RunError ("" when none).
const std::string& LastError();

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_COMMAND_H_
