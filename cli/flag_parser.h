// Parses `--flag=value`, `--flag value`, `--flag` / `--noflag` (booleans) into
// the program's ABSL_FLAGs. Unlike absl::ParseCommandLine, which exits with 1
// and a multi-line report, an unknown flag or a bad value becomes a one-line
// message the caller turns into exit code 2.
#ifndef STACKCHECK_CLI_FLAG_PARSER_H_
#define STACKCHECK_CLI_FLAG_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace stackcheck::cli {

struct ParsedCommandLine {
  std::vector<std::string> positional;  // command name first, if any
  bool help = false;                    // --help / -h was given
};

absl::StatusOr<ParsedCommandLine> ParseFlags(int argc, char** argv);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_FLAG_PARSER_H_
