// What `replay` borrows from `exec`: re-running a real program's recorded
// counterexample (cli/exec_replay_file.h).
#ifndef STACKCHECK_CLI_CMD_EXEC_H_
#define STACKCHECK_CLI_CMD_EXEC_H_

#include <string>

namespace stackcheck::cli {

// Replays an exec replay file or token once, running `program_name` (the
// program its user names: refused when empty, or when the replay records
// another build of it) with the recorded arguments: prints its timeline
// (`format` text) or writes its Chrome trace (`format` chrome, to `out_path`
// or stdout). 0 when the recorded property is violated again with the same
// trace digest, 1 when not, 2 on bad input.
int ReplayExec(const std::string& path_or_token, const std::string& program_name,
               const std::string& format, const std::string& out_path);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_CMD_EXEC_H_
