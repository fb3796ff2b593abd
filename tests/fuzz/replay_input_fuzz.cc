#include "tests/fuzz/replay_input_fuzz.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "properties/program/program_replay.h"
#include "properties/proof_part.h"
#include "properties/replay_file.h"
#include "properties/search_checkpoint.h"
#include "sim/program/exec_options.h"

namespace stackcheck::fuzz {
namespace {

using properties::ReplayRecord;

void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: broken promise: %s\n", what);
  std::abort();
}

bool Same(const ReplayRecord& a, const ReplayRecord& b) {
  return a.tool_version == b.tool_version && a.policy == b.policy && a.property == b.property &&
         a.test_case == b.test_case && a.digest == b.digest;
}

// An accepted record survives both of its encodings.
void CheckRoundTrips(const ReplayRecord& r) {
  absl::StatusOr<ReplayRecord> from_file =
      properties::ParseReplayFile(properties::FormatReplayFile(r));
  Require(from_file.ok(), "a formatted record parses");
  Require(Same(*from_file, r), "a formatted record parses to itself");
  absl::StatusOr<ReplayRecord> from_token =
      properties::DecodeReplayToken(properties::EncodeReplayToken(r));
  Require(from_token.ok(), "an encoded record decodes");
  Require(Same(*from_token, r), "an encoded record decodes to itself");
}

}  // namespace

void FuzzReplayInput(const std::uint8_t* data, std::size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  if (absl::StatusOr<ReplayRecord> r = properties::ParseReplayFile(input); r.ok()) {
    CheckRoundTrips(*r);
  }
  if (absl::StatusOr<ReplayRecord> r = properties::DecodeReplayToken(input); r.ok()) {
    CheckRoundTrips(*r);
  }
  const std::string token = absl::StrCat(properties::kReplayTokenPrefix, input);
  if (absl::StatusOr<ReplayRecord> r = properties::DecodeReplayToken(token); r.ok()) {
    CheckRoundTrips(*r);
  }
  // The other inputs a user hands over: scenario files (`check
  // --scenario_file`), checkpoints (`--resume`, digest first, then beneath
  // it), exec replay files and tokens, and fault plans (`--exec_faults`).
  // Each is accepted or refused with a status; none may crash or hang.
  (void)properties::ParseScenarioText(input);
  (void)properties::DecodeCheckpoint(input);
  (void)properties::DecodeCheckpoint(properties::RedigestCheckpointForTesting(input));
  (void)properties::DecodeProofPart(input);
  (void)properties::DecodeProofPart(properties::RedigestProofPartForTesting(input));
  (void)properties::ParseExecReplay(input);
  (void)properties::ParseExecReplay(absl::StrCat(properties::kExecReplayHeader, "\n", input));
  (void)program::ParseFaults(input);
}

}  // namespace stackcheck::fuzz
