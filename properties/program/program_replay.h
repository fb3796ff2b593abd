// A real program's counterexample, replayable: the program and its
// arguments, the fault plan, the exact schedule, and what it showed (the
// property, its fingerprint, the trace digest). As a file:
//
//   stackcheck exec replay v1
//   program /abs/path/abort_while_mapping
//   program_id fnv1a64:0123456789abcdef
//   arg map
//   arg 2
//   faults abort@launch:1
//   schedule 0,1,1,0
//   digest 1f3a...
//   property no-deadlock
//   fingerprint no-deadlock: ...
//   message deadlock: T1 waits on ...
//
// and as a token, "exec1:" and the file's text in web-safe base64, for
// pasting into a bug report. `stackcheck replay` takes either.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_REPLAY_H_
#define STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_REPLAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::properties {

struct ExecReplay {
  std::string program;
  // The program file's identity (ProgramIdentity): a replay runs only the
  // program its user names, and only if it is this one. Empty in files
  // written before it was recorded.
  std::string program_id;
  std::vector<std::string> args;
  std::string faults;  // exec_options.h's text form
  std::vector<std::uint64_t> schedule;
  std::uint64_t digest = 0;
  std::string property;
  std::string fingerprint;
  std::string message;
};

inline constexpr absl::string_view kExecReplayHeader = "stackcheck exec replay v1";
inline constexpr absl::string_view kExecTokenPrefix = "exec1:";

std::string FormatExecReplay(const ExecReplay& replay);
std::string ExecReplayToken(const ExecReplay& replay);
// A program file's identity: "fnv1a64:" and the 64-bit FNV-1a hash of its
// bytes (a check against replaying another build, not a signature).
absl::StatusOr<std::string> ProgramIdentity(const std::string& path);

// Parses a file's text; errors name the line.
absl::StatusOr<ExecReplay> ParseExecReplay(absl::string_view text);
// Whether `path_or_token` is an exec token or a file starting with the header.
bool IsExecReplay(const std::string& path_or_token);
absl::StatusOr<ExecReplay> LoadExecReplay(const std::string& path_or_token);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_REPLAY_H_
