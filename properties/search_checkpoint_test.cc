// A split search stopped by its budget and resumed from its checkpoint, part
// after part, ends where one uninterrupted run ends: exhausted, with the same
// known bugs met; and a checkpoint is refused for another search or when it
// is not whole.
#include "properties/search_checkpoint.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/scenarios.h"

namespace stackcheck::properties {
namespace {

ExploreSpec TwoJobs(const char* policy, bool abort, int regions = 2) {
  ExploreSpec spec;
  spec.test_case.scenario = RegionsScenario(2, regions, abort);
  spec.policy = FindPolicy(policy);
  spec.strategy = "dfs";
  spec.jobs = 2;
  spec.split_choices = 8;
  return spec;
}

std::set<std::string> Fingerprints(const std::vector<Finding>& findings) {
  std::set<std::string> out;
  for (const Finding& f : findings) out.insert(f.violation.fingerprint);
  return out;
}

// Runs `spec` in parts of `part` executions each, every one resuming the
// previous part's checkpoint, to the end; `parts` gets how many ran.
ExploreReport InParts(ExploreSpec spec, std::uint64_t part, int* parts) {
  spec.max_executions = part;
  spec.keep_checkpoint = true;
  ExploreReport r;
  for (*parts = 1; *parts < 1000; ++*parts) {
    const std::uint64_t before = r.executions;
    r = Explore(spec);
    EXPECT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.resumed_executions, before);
    if (r.exhausted || !r.findings.empty() || !r.status.ok()) return r;
    EXPECT_FALSE(r.checkpoint.empty()) << "part " << *parts << " stopped unfinished";
    spec.resume = r.checkpoint;
  }
  ADD_FAILURE() << "the search did not end in 1000 parts";
  return r;
}

TEST(SearchCheckpointTest, AResumedSearchEndsExhaustedAsOneRunDoes) {
  ExploreSpec spec = TwoJobs("event-fence", /*abort=*/true);
  const ExploreReport one = Explore(spec);
  ASSERT_TRUE(one.status.ok()) << one.status;
  ASSERT_TRUE(one.exhausted);
  ASSERT_EQ(one.first(), nullptr);
  int parts = 0;
  const ExploreReport resumed = InParts(spec, one.executions / 6 + 1, &parts);
  EXPECT_TRUE(resumed.exhausted);
  EXPECT_EQ(resumed.first(), nullptr);
  EXPECT_GE(parts, 6);
  EXPECT_TRUE(resumed.checkpoint.empty());
  // A stop loses nothing: each worker's stack goes on where it stood (two
  // workers' counts vary a little with timing, as in one run).
  EXPECT_GE(resumed.executions, one.executions * 9 / 10);
  EXPECT_LE(resumed.executions, one.executions * 11 / 10);
  EXPECT_EQ(resumed.metrics.executions, resumed.executions);
}

TEST(SearchCheckpointTest, KnownBugsMetInEarlierPartsAreKept) {
  ExploreSpec spec = TwoJobs("v0-nocache", /*abort=*/true, /*regions=*/1);
  spec.monitors.kind = MonitorSelection::kOnlyKept;
  const ExploreReport one = Explore(spec);
  ASSERT_TRUE(one.status.ok()) << one.status;
  ASSERT_TRUE(one.exhausted);
  ASSERT_FALSE(one.known_met.empty());
  int parts = 0;
  const ExploreReport resumed = InParts(spec, one.executions / 4 + 1, &parts);
  EXPECT_TRUE(resumed.exhausted);
  EXPECT_GE(parts, 4);
  EXPECT_EQ(Fingerprints(resumed.known_met), Fingerprints(one.known_met));
  for (const Finding& f : resumed.known_met) {
    EXPECT_TRUE(absl::StartsWith(f.token, "sc1.")) << f.token;
    EXPECT_FALSE(f.schedule.empty() && f.at_execution > 1);
  }
}

TEST(SearchCheckpointTest, TheTextReadsBackAsWritten) {
  SearchCheckpoint c;
  c.key = "a key, with\ta tab";
  c.binary = "fnv1a64:00112233445566ff";
  c.exact_memory_ledger = true;
  c.totals.executions = 12;
  c.totals.seconds = 3.5;
  c.totals.sleep_blocked = 2;
  c.totals.metrics.actor_choices = 340;
  c.totals.metrics.max_preemptions = 4;
  c.tree = "stackcheck split-tree 1\ncounters 0 0 0 0 0\nend\n";
  absl::StatusOr<SearchCheckpoint> back = DecodeCheckpoint(EncodeCheckpoint(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->key, c.key);
  EXPECT_EQ(back->binary, c.binary);
  EXPECT_TRUE(back->exact_memory_ledger);
  EXPECT_EQ(back->totals.executions, 12u);
  EXPECT_DOUBLE_EQ(back->totals.seconds, 3.5);
  EXPECT_EQ(back->totals.sleep_blocked, 2u);
  EXPECT_EQ(back->totals.metrics.actor_choices, 340u);
  EXPECT_EQ(back->totals.metrics.max_preemptions, 4u);
  EXPECT_EQ(back->tree, c.tree);
}

TEST(SearchCheckpointTest, RefusesAnotherSearchOrABrokenFile) {
  ExploreSpec spec = TwoJobs("event-fence", /*abort=*/false);
  spec.max_executions = 20;
  spec.keep_checkpoint = true;
  const ExploreReport first = Explore(spec);
  ASSERT_FALSE(first.exhausted);
  ASSERT_FALSE(first.checkpoint.empty());

  auto resume = [](ExploreSpec s, const std::string& text) {
    s.resume = text;
    return Explore(s).status;
  };
  ExploreSpec other = spec;
  other.policy = FindPolicy("v2-gcc11");
  absl::Status s = resume(other, first.checkpoint);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "another search")) << s;
  other = spec;
  other.test_case.scenario = RegionsScenario(2, 2, /*abort=*/true);
  EXPECT_TRUE(absl::StrContains(resume(other, first.checkpoint).message(), "another search"));
  other = spec;
  other.split_choices = 9;
  EXPECT_TRUE(absl::StrContains(resume(other, first.checkpoint).message(), "another search"));
  other = spec;
  other.jobs = 0;
  EXPECT_EQ(resume(other, first.checkpoint).code(), absl::StatusCode::kInvalidArgument);
  // The job count is no part of the search: three go on from two.
  other = spec;
  other.jobs = 3;
  EXPECT_TRUE(resume(other, first.checkpoint).ok());

  const std::string& good = first.checkpoint;
  // Damage beneath the digest: each is re-digested, so that the parser and
  // the tree's own checks are what refuse it.
  const std::vector<std::string> broken = {
      "stackcheck checkpoint 4\n",
      good.substr(0, good.size() / 2),  // cut short
      good.substr(0, good.size() - 4),  // the tree's `end` lost
      RedigestCheckpointForTesting(absl::StrReplaceAll(good, {{"counts ", "counts x"}})),
      RedigestCheckpointForTesting(
          absl::StrReplaceAll(good, {{"exact_memory_ledger 0", "exact_memory_ledger 2"}})),
      RedigestCheckpointForTesting(
          absl::StrReplaceAll(good, {{"\ntree\n", "\nknown 3\tnot a token\t\t\t\ntree\n"}})),
      RedigestCheckpointForTesting(absl::StrReplaceAll(good, {{"\nnode ", "\nnode 9"}})),
      // a damaged suspended stack
      RedigestCheckpointForTesting(absl::StrReplaceAll(good, {{"\nend", " 5\nend"}})),
  };
  for (std::size_t i = 0; i < broken.size(); ++i) {
    const absl::Status refused = resume(spec, broken[i]);
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << "case " << i << ":\n"
                                                                  << broken[i];
  }
}

// A checkpoint is refused when its content no longer matches its digest,
// whatever the change: here an option of the split tree marked done by hand,
// which, resumed, would skip a part of the search and still say "exhausted".
TEST(SearchCheckpointTest, AnEditedCheckpointIsRefusedByItsDigest) {
  ExploreSpec spec = TwoJobs("event-fence", /*abort=*/false);
  spec.max_executions = 20;
  spec.keep_checkpoint = true;
  const ExploreReport first = Explore(spec);
  ASSERT_TRUE(first.status.ok()) << first.status;
  ASSERT_FALSE(first.checkpoint.empty());
  const std::string& good = first.checkpoint;
  const std::size_t node = good.find("\nnode ");
  ASSERT_NE(node, std::string::npos);
  std::string edited = good;
  edited[good.find(' ', node + 6) - 1] ^= 1;  // the node line's first number
  ExploreSpec again = spec;
  again.resume = edited;
  const absl::Status refused = Explore(again).status;
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(refused.message(), "does not match its digest")) << refused;
  // A file of the format before digests is refused as such.
  again.resume =
      absl::StrReplaceAll(good, {{"stackcheck checkpoint 4", "stackcheck checkpoint 1"}});
  EXPECT_TRUE(absl::StrContains(Explore(again).status.message(), "without an integrity digest"));
  // So is one of the format whose steps were ordered by another dependence.
  again.resume =
      absl::StrReplaceAll(good, {{"stackcheck checkpoint 4", "stackcheck checkpoint 2"}});
  EXPECT_TRUE(absl::StrContains(Explore(again).status.message(), "another dependence"));
  // And one of the format that did not name its build.
  again.resume =
      absl::StrReplaceAll(good, {{"stackcheck checkpoint 4", "stackcheck checkpoint 3"}});
  EXPECT_TRUE(absl::StrContains(Explore(again).status.message(), "did not name its build"));
  // One that another build wrote, whatever its digest says, is not gone on
  // from.
  const std::size_t binary = good.find("\nbinary ");
  ASSERT_NE(binary, std::string::npos);
  std::string foreign = good;
  foreign.replace(binary + 8, good.find('\n', binary + 1) - binary - 8, "fnv1a64:0123456789abcdef");
  again.resume = RedigestCheckpointForTesting(foreign);
  const absl::Status other_build = Explore(again).status;
  EXPECT_EQ(other_build.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(other_build.message(), "another build")) << other_build;
  // The untouched file goes on.
  again.resume = good;
  EXPECT_TRUE(Explore(again).status.ok());
}

}  // namespace
}  // namespace stackcheck::properties
