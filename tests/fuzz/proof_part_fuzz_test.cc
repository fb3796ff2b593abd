// Proof parts (`check --resume` of a shard, `check --merge`), fuzzed in the
// ordinary suite: seeded mutations of real parts, as damaged and re-digested,
// plus extreme counts. The promises: no crash; a damaged part refused with
// an error naming its line (never a different proof); an accepted one reads
// back as written, goes on as a shard's earlier run (or has its suspended
// stack refused) and merges or is refused;
// memory that follows the file's size, not the numbers written in it.
#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/proof_merge.h"
#include "properties/proof_part.h"
#include "properties/scenarios.h"
#include "tests/fuzz/mutations.h"

namespace stackcheck::fuzz {
namespace {

using properties::ExploreReport;
using properties::ExploreSpec;
using properties::PartFile;
using properties::ProofPart;

constexpr long kMaxResidentKiB = 768 * 1024;

long PeakResidentKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

ExploreSpec Shard(const char* policy, std::uint32_t index) {
  ExploreSpec spec;
  spec.test_case.scenario = properties::RegionsScenario(2, 2, /*abort=*/true);
  spec.policy = FindPolicy(policy);
  spec.strategy = "dfs";
  spec.shard.count = 3;
  spec.shard.index = index;
  spec.split_choices = 24;
  if (std::string(policy) != "event-fence") {
    spec.monitors.kind = properties::MonitorSelection::kOnlyKept;
  }
  return spec;
}

// Parts of whole and stopped shards, with escapes and known bugs met.
std::vector<std::string> Seeds() {
  std::vector<std::string> seeds;
  for (const char* policy : {"event-fence", "v1a-callback-unlock"}) {
    for (std::uint32_t index = 0; index < 3; ++index) {
      for (std::uint64_t budget : {0, 40}) {
        ExploreSpec spec = Shard(policy, index);
        spec.max_executions = budget;
        const ExploreReport r = properties::Explore(spec);
        EXPECT_TRUE(r.status.ok()) << r.status;
        seeds.push_back(properties::EncodeProofPart(
            properties::PartOf(spec, r, budget != 0 ? "max_executions" : "", nullptr)));
      }
    }
  }
  return seeds;
}

// What a part that reads must keep: it writes back to itself, a shard goes on
// from it (refusing only a suspended stack that does not fit the search: the
// rest of the progress is skipped units and known escapes), and it merges
// with its siblings or is refused.
void CheckAccepted(const ProofPart& part, const std::vector<PartFile>& siblings) {
  absl::StatusOr<ProofPart> again = properties::DecodeProofPart(properties::EncodeProofPart(part));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->finished, part.finished);
  EXPECT_EQ(again->escapes.size(), part.escapes.size());
  EXPECT_EQ(again->stack, part.stack);
  ExploreSpec spec = Shard("event-fence", part.index % 3);
  spec.shard.before = part.Progress();
  spec.max_executions = 20;
  const ExploreReport r = properties::Explore(spec);
  if (part.stack.empty()) {
    EXPECT_TRUE(r.status.ok()) << r.status;
  } else if (!r.status.ok()) {
    // A stack that does not fit this search (another policy's, or damaged
    // and re-digested) is refused as such.
    EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
    EXPECT_TRUE(absl::StrContains(r.status.message(), "stack")) << r.status;
  }
  std::vector<PartFile> files = siblings;
  files.push_back({"mutant", properties::EncodeProofPart(part)});
  absl::StatusOr<properties::MergedProof> merged = properties::MergeProofParts(files);
  if (!merged.ok()) {
    EXPECT_TRUE(absl::IsInvalidArgument(merged.status())) << merged.status();
  }
}

TEST(ProofPartFuzz, MutationsAreRefusedByLineOrKeepEveryPromise) {
  const std::vector<std::string> seeds = Seeds();
  ASSERT_EQ(seeds.size(), 12u);
  const std::vector<PartFile> siblings = {{"s0", seeds[0]}, {"s1", seeds[2]}};
  Rng rng(20261207);
  int accepted = 0;
  int refused = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < 300; ++i) {
      const std::string mutated = Mutate(seed, seeds, rng);
      for (const std::string& text : {mutated, properties::RedigestProofPartForTesting(mutated)}) {
        absl::StatusOr<ProofPart> part = properties::DecodeProofPart(text);
        if (!part.ok()) {
          ++refused;
          ASSERT_TRUE(absl::IsInvalidArgument(part.status())) << part.status();
          ASSERT_FALSE(part.status().message().empty());
          continue;
        }
        ++accepted;
        CheckAccepted(*part, siblings);
      }
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(accepted, 0);
  EXPECT_LT(PeakResidentKiB(), kMaxResidentKiB);
}

TEST(ProofPartFuzz, ExtremeCountsAreRefusedWithoutSizingAnything) {
  const std::vector<std::string> seeds = Seeds();
  const std::string& seed = seeds[0];
  const std::size_t at = seed.find("\nfinished ");
  ASSERT_NE(at, std::string::npos);
  const std::size_t eol = seed.find('\n', at + 1);
  for (const char* ranges : {"0-18446744073709551615", "0-4000000000", "5-3", "0-1,1-2", "x-1",
                             "0-9999999,10000000-10000001"}) {
    SCOPED_TRACE(ranges);
    const std::string text = properties::RedigestProofPartForTesting(
        absl::StrCat(seed.substr(0, at), "\nfinished ", ranges, seed.substr(eol)));
    absl::StatusOr<ProofPart> part = properties::DecodeProofPart(text);
    ASSERT_FALSE(part.ok());
    EXPECT_TRUE(absl::StrContains(part.status().message(), "part line 7")) << part.status();
  }
  // The largest unit count: the shard's own units among them, without overflow.
  ProofPart p;
  p.index = 2;
  p.count = 3;
  EXPECT_EQ(p.OwnedAmong(~std::uint64_t{0}), (~std::uint64_t{0} - 3) / 3 + 1);
  EXPECT_EQ(p.OwnedAmong(3), 1u);
  EXPECT_EQ(p.OwnedAmong(2), 0u);
  EXPECT_LT(PeakResidentKiB(), kMaxResidentKiB);
}

}  // namespace
}  // namespace stackcheck::fuzz
