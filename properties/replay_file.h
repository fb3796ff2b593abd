// Replay files and replay tokens: a failure, stored so that it re-executes
// exactly. A record holds the case (scenario, simulator modes, schedule), the
// policy it ran, the property it violated, the tool version that wrote it and,
// when known, the digest of the failing trace.
//
// The file is versioned, line-oriented text meant to be read and hand-edited:
//
//   stackcheck-replay 3
//   tool 0.1.0
//   policy v1b-callback-lock
//   property no-deadlock
//   modes free_waits_for_streams=1 serial_callback_thread=1 trap_code=719 ...
//   device capacity=4194304 soft_limit=524288 close_at_end=1 shipped_target=0
//   faults alloc_failure_at_call=0 launch_failure_at_call=0 device_constructors=0
//          device_destructors=0
//   thread
//   run id=1 teams=2 warps=1 stack_size_per_warp=131072 duration_ns=1000 aborts=0
//       mapped_vars=1
//   enter slot=1 bytes=64
//   update slot=1
//   exit slot=1
//   alloc slot=0 bytes=131072
//   free slot=0
//   schedule 0 1 0 2
//   digest 5a1f...
//   fingerprint no-deadlock: cycle [...]; fault abort
//   end
//
// '#' starts a comment line. The token is the same content in a compact binary
// form, base64url-encoded after a "sc1." prefix, short enough for one line of a
// failure message; `stackcheck replay` accepts either.
//
// A scenario file (`stackcheck check --scenario_file`) is the case lines of a
// replay file alone - modes, device, faults, thread and the operations - in
// which every line but 'thread' and the operations is optional, and so is
// every field: one left out keeps its default (CaseModes(), a Scenario's
// device, no faults; run: teams=1 warps=1 stack_size_per_warp=131072
// duration_ns=1000 aborts=0 mapped_vars=0, an unused id; alloc: slot=0
// bytes=131072; enter: slot=0 bytes=64; free, exit, update: slot=0):
//
//   device soft_limit=131072
//   faults alloc_failure_at_call=2
//   thread
//   run warps=2
//   alloc slot=0
//   thread
//   enter slot=1
//   run aborts=1 mapped_vars=1
//
// Its errors name the line and the column.
#ifndef STACKCHECK_PROPERTIES_REPLAY_FILE_H_
#define STACKCHECK_PROPERTIES_REPLAY_FILE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "properties/case.h"

namespace stackcheck::properties {

// Files and tokens are written in the newest format and read in any since
// the oldest: a field a later version added (Field::since) takes its default
// in an older record.
inline constexpr int kReplayFormatVersion = 3;
inline constexpr int kOldestReplayFormatVersion = 2;
inline constexpr absl::string_view kReplayTokenPrefix = "sc1.";
// Inputs larger than these are rejected before they are parsed.
inline constexpr std::size_t kMaxReplayFileBytes = 1 << 20;
inline constexpr std::size_t kMaxReplayTokenChars = 100000;  // below one argv word's limit

struct ReplayRecord {
  std::string tool_version;  // filled with core/version.h's kVersion on write
  std::string policy;
  std::string property;  // a catalogue name
  Case test_case;
  std::optional<std::uint64_t> digest;  // of the failing trace, if recorded
  // The violation's fingerprint (sim/fingerprint.h), if recorded: the rest of
  // its line. Not part of the token (a replay recomputes it).
  std::string fingerprint;
};

std::string FormatReplayFile(const ReplayRecord& record);
// Errors name the line and the field. A different format or tool version, an
// unknown property, a truncated file and out-of-range values are all errors.
// (The policy is checked by whoever runs it, against the policy registry.)
absl::StatusOr<ReplayRecord> ParseReplayFile(absl::string_view text);

// Atomically: a reader sees the old file or the whole new one.
absl::Status WriteReplayFile(const std::string& path, const ReplayRecord& record);
// Only a regular file of at most kMaxReplayFileBytes (not a directory, a
// device or a pipe) is read.
absl::StatusOr<ReplayRecord> ReadReplayFile(const std::string& path);

// The case lines of a replay file: modes, device, faults and the threads
// (not the schedule). A scenario file holds them.
std::string FormatScenarioText(const Case& c);
// A scenario file's text: a case with an empty schedule. Errors name the
// line and the column.
absl::StatusOr<Case> ParseScenarioText(absl::string_view text);
// As ReadReplayFile, for a scenario file; errors start with the path.
absl::StatusOr<Case> ReadScenarioFile(const std::string& path);

std::string EncodeReplayToken(const ReplayRecord& record);
absl::StatusOr<ReplayRecord> DecodeReplayToken(absl::string_view token);

// `arg` is a token (starts with kReplayTokenPrefix) or a path to a replay file.
absl::StatusOr<ReplayRecord> LoadReplay(absl::string_view arg);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_REPLAY_FILE_H_
