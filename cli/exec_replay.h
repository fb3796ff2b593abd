// `stackcheck replay` of a real program's counterexample (an exec replay
// file or token): ReplayProgram (properties/program/explore_program.h), then
// its timeline, Chrome trace, steering order or JSON.
#ifndef STACKCHECK_CLI_EXEC_REPLAY_H_
#define STACKCHECK_CLI_EXEC_REPLAY_H_

#include <string>

namespace stackcheck::cli {

// Replays `path_or_token` once, running `program_name` (the program its user
// names: refused when empty, or when the replay records another build of
// it): prints its timeline (`format` text), writes its Chrome trace
// (chrome) or steering order (steer) to `out_path` or stdout. 0 when the
// recorded property is violated again with the same trace digest, 1 when
// not, 2 on bad input.
int ReplayExec(const std::string& path_or_token, const std::string& program_name,
               const std::string& format, const std::string& out_path);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_EXEC_REPLAY_H_
