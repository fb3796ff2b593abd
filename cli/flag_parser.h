// Parses `--flag=value`, `--flag value`, `--flag` / `--noflag` (booleans) into
// the program's ABSL_FLAGs. Unlike absl::ParseCommandLine, which exits with 1
// and a multi-line report, an unknown flag or a bad value becomes a one-line
// message the caller turns into exit code 2.
#ifndef STACKCHECK_CLI_FLAG_PARSER_H_
#define STACKCHECK_CLI_FLAG_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::cli {

struct ParsedCommandLine {
  std::vector<std::string> positional;  // command name first, if any
  bool help = false;                    // --help / -h was given
  std::vector<std::string> given;       // the flags set, by name, in order
};

absl::StatusOr<ParsedCommandLine> ParseFlags(int argc, char** argv);

// Whether the last ParseFlags set the flag `name` (to any value).
bool FlagGiven(absl::string_view name);

// The commands a flag belongs to, from its help text: "campaign: ..." or
// "validate, bench launch: ..." (words after " --" in a name qualify it and
// are ignored). Empty when the help names no known command: the flag belongs
// to every command.
std::vector<std::string> FlagCommands(absl::string_view help,
                                      const std::vector<std::string>& commands);

// The usage error for `command` when a given flag belongs to other commands
// only ("--threads has no effect on replay"); OK otherwise.
absl::Status CheckFlagsBelong(absl::string_view command, const ParsedCommandLine& parsed,
                              const std::vector<std::string>& commands);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_FLAG_PARSER_H_
