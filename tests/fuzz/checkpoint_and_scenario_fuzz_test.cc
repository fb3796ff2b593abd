// The other two files a user hands the tool, fuzzed in the ordinary suite:
// checkpoints (`check --resume`) and scenario files (`check --scenario_file`).
// Seeded mutations of real ones, plus the extreme counts that once sized
// vectors before their range check. The promises: no crash, an error (never
// a different search) for a damaged file, errors that name where, and memory
// that follows the file's size rather than the numbers written in it.
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/replay_file.h"
#include "properties/scenarios.h"
#include "properties/search_checkpoint.h"
#include "tests/fuzz/mutations.h"

namespace stackcheck::fuzz {
namespace {

using properties::ExploreReport;
using properties::ExploreSpec;

// Far above what reading a few kilobytes should cost, far below what sizing
// a vector by a damaged count costs (2^32 nodes: tens of gigabytes).
constexpr long kMaxResidentKiB = 768 * 1024;

long PeakResidentKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

ExploreSpec SplitSearch(int regions, bool abort) {
  ExploreSpec spec;
  spec.test_case.scenario = properties::RegionsScenario(2, regions, abort);
  spec.policy = FindPolicy("event-fence");
  spec.strategy = "dfs";
  spec.jobs = 2;
  spec.split_choices = 8;
  return spec;
}

// Checkpoints of searches stopped early, at a few depths.
std::vector<std::string> CheckpointSeeds(const ExploreSpec& spec) {
  std::vector<std::string> seeds;
  for (std::uint64_t budget : {10, 30, 60, 120}) {
    ExploreSpec s = spec;
    s.max_executions = budget;
    s.keep_checkpoint = true;
    const ExploreReport r = properties::Explore(s);
    EXPECT_TRUE(r.status.ok()) << r.status;
    // None once the budget covers the whole search.
    if (!r.checkpoint.empty()) seeds.push_back(r.checkpoint);
  }
  EXPECT_GE(seeds.size(), 3u) << "the search is too small to stop early";
  return seeds;
}

// Resumes `text` for a few executions: a damaged file is refused with
// InvalidArgument; an accepted one runs.
void Resume(const ExploreSpec& spec, const std::string& text) {
  ExploreSpec s = spec;
  s.resume = text;
  s.max_executions = 3;
  const ExploreReport r = properties::Explore(s);
  if (!r.status.ok()) {
    ASSERT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
    ASSERT_FALSE(r.status.message().empty());
  }
}

TEST(CheckpointFuzz, ExtremeOptionCountsAreRefusedWithoutSizingAnything) {
  const ExploreSpec spec = SplitSearch(3, /*abort=*/false);
  const std::vector<std::string> seeds = CheckpointSeeds(spec);
  ASSERT_FALSE(seeds.empty());
  const std::string& seed = seeds.back();
  // The first node line's option count (`node PARENT+1 OPTION IS_ACTOR N ...`).
  const std::size_t node = seed.find("\nnode ");
  ASSERT_NE(node, std::string::npos);
  const std::size_t eol = seed.find('\n', node + 1);
  std::vector<std::string> fields =
      absl::StrSplit(seed.substr(node + 1, eol - node - 1), ' ', absl::SkipEmpty());
  ASSERT_GE(fields.size(), 5u);
  for (const char* count : {"9223372036854775808", "4000000000", "65536", "65535", "0"}) {
    SCOPED_TRACE(count);
    std::vector<std::string> damaged = fields;
    damaged[4] = count;
    const std::string text = properties::RedigestCheckpointForTesting(
        absl::StrCat(seed.substr(0, node + 1), absl::StrJoin(damaged, " "), seed.substr(eol)));
    ExploreSpec s = spec;
    s.resume = text;
    s.max_executions = 3;
    const ExploreReport r = properties::Explore(s);
    EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
    EXPECT_TRUE(absl::StrContains(r.status.message(), "split-tree line")) << r.status;
  }
  EXPECT_LT(PeakResidentKiB(), kMaxResidentKiB);
}

TEST(CheckpointFuzz, MutationsAreRefusedOrResumed) {
  const ExploreSpec spec = SplitSearch(3, /*abort=*/false);
  const std::vector<std::string> seeds = CheckpointSeeds(spec);
  ASSERT_FALSE(seeds.empty());
  for (const std::string& seed : seeds) Resume(spec, seed);
  Rng rng(20261206);
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 400; ++i) {
      const std::string mutated = Mutate(seed, seeds, rng);
      // As damaged (the digest refuses nearly all), and re-digested, so that
      // the parser and the tree's checks beneath it meet the same damage.
      Resume(spec, mutated);
      Resume(spec, properties::RedigestCheckpointForTesting(mutated));
    }
  }
  EXPECT_LT(PeakResidentKiB(), kMaxResidentKiB);
}

std::vector<std::string> ScenarioSeeds() {
  std::vector<std::string> seeds;
  for (const auto& [threads, regions, abort] :
       std::vector<std::tuple<int, int, bool>>{{1, 1, false}, {2, 2, true}, {3, 1, true}}) {
    properties::Case c;
    c.scenario = properties::RegionsScenario(threads, regions, abort);
    seeds.push_back(properties::FormatScenarioText(c));
  }
  // Every kind of line, every field.
  seeds.push_back(
      "modes free_waits_for_streams=0 serial_callback_thread=0 trap_code=700 "
      "alloc_granularity=65536 step_bound=5000\n"
      "device capacity=1073741824 soft_limit=12345 close_at_end=1\n"
      "faults alloc_failure_at_call=3 launch_failure_at_call=2 device_constructors=1 "
      "device_destructors=1\n"
      "thread\nrun id=7 teams=3 warps=2 stack_size_per_warp=4096 duration_ns=1000 aborts=1 "
      "mapped_vars=2\nalloc slot=2 bytes=300000\nenter slot=1 bytes=64\nupdate slot=1\n"
      "exit slot=1\nfree slot=2\nthread\nrun warps=1\n");
  return seeds;
}

TEST(ScenarioFileFuzz, MutationsAreRefusedByLineOrRunCleanly) {
  const std::vector<std::string> seeds = ScenarioSeeds();
  const PolicyInfo* policy = FindPolicy("event-fence");
  ASSERT_NE(policy, nullptr);
  Rng rng(20261207);
  int accepted = 0, refused = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 1500; ++i) {
      const std::string text = i == 0 ? seed : Mutate(seed, seeds, rng);
      absl::StatusOr<properties::Case> c = properties::ParseScenarioText(text);
      if (!c.ok()) {
        ++refused;
        ASSERT_TRUE(absl::IsInvalidArgument(c.status())) << c.status() << "\n" << text;
        ASSERT_TRUE(absl::StrContains(c.status().message(), "line")) << c.status() << "\n" << text;
        continue;
      }
      ++accepted;
      // What it reads is what it writes.
      absl::StatusOr<properties::Case> again =
          properties::ParseScenarioText(properties::FormatScenarioText(*c));
      ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
      ASSERT_TRUE(*again == *c) << text;
      // And it runs: an accepted file never crashes the engine.
      c->modes.step_bound = std::min<std::uint64_t>(c->modes.step_bound, 20000);
      absl::StatusOr<properties::Execution> e = properties::Execute(*c, *policy, {});
      ASSERT_TRUE(e.ok()) << e.status() << "\n" << text;
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 100);
  EXPECT_LT(PeakResidentKiB(), kMaxResidentKiB);
}

}  // namespace
}  // namespace stackcheck::fuzz
