// exec's input readers fuzzed in the ordinary suite: exec replay files and
// tokens (properties/program/program_replay.h) and fault plans (sim/libcuda/
// exec_options.h), seeded mutations of real ones. The promises: no crash; a
// refusal is InvalidArgument (or NotFound for a token's missing file) with a
// message; what is accepted reads back to itself from its own text.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "properties/program/program_replay.h"
#include "sim/program/exec_options.h"
#include "tests/fuzz/mutations.h"

namespace stackcheck::fuzz {
namespace {

bool Same(const properties::ExecReplay& a, const properties::ExecReplay& b) {
  return a.program == b.program && a.args == b.args && a.faults == b.faults &&
         a.schedule == b.schedule && a.digest == b.digest && a.property == b.property &&
         a.fingerprint == b.fingerprint && a.message == b.message;
}

std::vector<std::string> ReplaySeeds() {
  properties::ExecReplay r;
  r.program = "/usr/local/bin/abort_while_mapping";
  r.args = {"map", "2", "0", "4"};
  r.faults = "abort@launch:1,oom@alloc:3,oom@alloc:4";
  r.schedule = {0, 1, 1, 0, 3, 18446744073709551615ull};
  r.digest = 0x1f3a5b7c9d0e2f41;
  r.property = "no-deadlock";
  r.fingerprint = "no-deadlock: cycle [host thread waits on libgomp's device lock]";
  r.message = "deadlock: T1 waits on libgomp's device lock held by T2";
  properties::ExecReplay empty;
  empty.program = "/bin/true";
  return {properties::FormatExecReplay(r), properties::FormatExecReplay(empty),
          properties::ExecReplayToken(r), properties::ExecReplayToken(empty)};
}

TEST(ExecReplayFuzz, MutationsAreRefusedOrReadBack) {
  const std::vector<std::string> seeds = ReplaySeeds();
  Rng rng(20261206);
  int accepted = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 3000; ++i) {
      const std::string text = i == 0 ? seed : Mutate(seed, seeds, rng);
      absl::StatusOr<properties::ExecReplay> r = properties::ParseExecReplay(text);
      if (!r.ok()) {
        ASSERT_TRUE(absl::IsInvalidArgument(r.status())) << r.status() << "\n" << text;
        ASSERT_FALSE(r.status().message().empty());
        continue;
      }
      ++accepted;
      absl::StatusOr<properties::ExecReplay> again =
          properties::ParseExecReplay(properties::FormatExecReplay(*r));
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
      ASSERT_TRUE(Same(*again, *r)) << text;
    }
  }
  EXPECT_GT(accepted, 50);
  // Tokens: as given on a command line (LoadExecReplay decodes them).
  for (const std::string& seed : seeds) {
    if (!absl::StartsWith(seed, properties::kExecTokenPrefix)) continue;
    for (int i = 0; i < 2000; ++i) {
      const std::string token = Mutate(seed, seeds, rng);
      if (!absl::StartsWith(token, properties::kExecTokenPrefix)) continue;  // a path, not a token
      absl::StatusOr<properties::ExecReplay> r = properties::LoadExecReplay(token);
      if (!r.ok()) {
        ASSERT_FALSE(r.status().message().empty());
        continue;
      }
      absl::StatusOr<properties::ExecReplay> again =
          properties::LoadExecReplay(properties::ExecReplayToken(*r));
      ASSERT_TRUE(again.ok() && Same(*again, *r)) << token;
    }
  }
}

TEST(FaultPlanFuzz, MutationsAreRefusedOrReadBack) {
  const std::vector<std::string> seeds = {
      "abort@launch:2", "abort@kernel:main$_omp_fn$0:1,oom@alloc:3",
      "oom@alloc:1,oom@alloc:2,reject@launch:4", "reject@launch:1", ""};
  Rng rng(20261208);
  int accepted = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 3000; ++i) {
      const std::string text = i == 0 ? seed : Mutate(seed, seeds, rng);
      absl::StatusOr<program::FaultPlan> p = program::ParseFaults(text);
      if (!p.ok()) {
        ASSERT_TRUE(absl::IsInvalidArgument(p.status())) << p.status() << "\n" << text;
        continue;
      }
      ++accepted;
      const std::string formatted = program::FormatFaults(*p);
      // Nothing that would break a tab-separated request or a JSON string.
      for (const char c : formatted) ASSERT_TRUE(c >= 0x20 && c != '"' && c != '\\') << formatted;
      absl::StatusOr<program::FaultPlan> again = program::ParseFaults(formatted);
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << formatted;
      ASSERT_EQ(program::FormatFaults(*again), formatted);
    }
  }
  EXPECT_GT(accepted, 50);
}

}  // namespace
}  // namespace stackcheck::fuzz
