// A sharded proof, every shard run in this process: the merged parts prove
// what one search proves (exhausted, the same known bugs met), a shard
// stopped by its budget goes on from its part, and a merge refuses a part
// that is missing, given twice, damaged, of another search or of another
// build.
#include <set>
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

namespace stackcheck::properties {
namespace {

ExploreSpec Sharded(const char* policy, bool abort, std::uint32_t count, std::uint32_t index) {
  ExploreSpec spec;
  spec.test_case.scenario = RegionsScenario(2, 2, abort);
  spec.policy = FindPolicy(policy);
  spec.strategy = "dfs";
  spec.shard.count = count;
  spec.shard.index = index;
  spec.split_choices = 6;
  return spec;
}

std::set<std::string> Fingerprints(const std::vector<Finding>& findings) {
  std::set<std::string> out;
  for (const Finding& f : findings) out.insert(f.violation.fingerprint);
  return out;
}

// Every shard of `count`, each to its end; `tweak` adjusts each spec.
template <typename Tweak>
std::vector<PartFile> AllParts(const char* policy, bool abort, std::uint32_t count, Tweak tweak) {
  std::vector<PartFile> files;
  for (std::uint32_t index = 0; index < count; ++index) {
    ExploreSpec spec = Sharded(policy, abort, count, index);
    tweak(spec);
    const ExploreReport r = Explore(spec);
    EXPECT_TRUE(r.status.ok()) << r.status;
    files.push_back({absl::StrCat("part", index), EncodeProofPart(PartOf(spec, r, "", nullptr))});
  }
  return files;
}

std::vector<PartFile> AllParts(const char* policy, bool abort, std::uint32_t count) {
  return AllParts(policy, abort, count, [](ExploreSpec&) {});
}

TEST(ProofTest, MergedShardsProveWhatOneSearchProves) {
  ExploreSpec one = Sharded("event-fence", /*abort=*/true, 1, 0);
  one.shard = {};
  const ExploreReport whole = Explore(one);
  ASSERT_TRUE(whole.exhausted);
  ASSERT_EQ(whole.first(), nullptr);
  for (std::uint32_t count : {1u, 3u, 8u}) {
    absl::StatusOr<MergedProof> merged = MergeProofParts(AllParts("event-fence", true, count));
    ASSERT_TRUE(merged.ok()) << merged.status();
    EXPECT_TRUE(merged->exhausted) << count;
    EXPECT_TRUE(merged->findings.empty());
    EXPECT_EQ(merged->shards, count);
    EXPECT_GT(merged->units, 1u);
    // Each shard walks the whole top; its own units are about 1/count of
    // the search, so the executions are not many more than one search's
    // plus the walks.
    EXPECT_LE(merged->executions - merged->walk_executions, 4 * whole.executions) << count;
  }
}

TEST(ProofTest, MergedShardsMeetTheKnownBugsOneSearchMeets) {
  auto only_kept = [](ExploreSpec& s) { s.monitors.kind = MonitorSelection::kOnlyKept; };
  ExploreSpec one = Sharded("v0-nocache", /*abort=*/true, 1, 0);
  one.shard = {};
  only_kept(one);
  const ExploreReport whole = Explore(one);
  ASSERT_TRUE(whole.exhausted);
  ASSERT_FALSE(whole.known_met.empty());
  absl::StatusOr<MergedProof> merged = MergeProofParts(AllParts("v0-nocache", true, 4, only_kept));
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_TRUE(merged->exhausted);
  EXPECT_EQ(Fingerprints(merged->known_met), Fingerprints(whole.known_met));
}

// A shard stopped by a small budget, run again from its part (written out
// and read back each time) until whole: it goes on from the execution after
// its last, inside the unit it was in, so its runs together are the
// uninterrupted run's executions, no more.
TEST(ProofTest, AStoppedShardGoesOnFromItsPart) {
  std::vector<PartFile> files = AllParts("event-fence", false, 3);
  ExploreSpec spec = Sharded("event-fence", /*abort=*/false, 3, 1);
  const ExploreReport uninterrupted = Explore(spec);
  ASSERT_TRUE(uninterrupted.exhausted);
  spec.max_executions = 7;
  ProofPart part;
  bool have = false;
  int runs = 0;
  for (; runs < 1000; ++runs) {
    ExploreSpec again = spec;
    if (have) again.shard.before = part.Progress();
    const ExploreReport r = Explore(again);
    ASSERT_TRUE(r.status.ok()) << r.status;
    absl::StatusOr<ProofPart> read = DecodeProofPart(
        EncodeProofPart(PartOf(again, r, "max_executions", have ? &part : nullptr)));
    ASSERT_TRUE(read.ok()) << read.status();
    part = *std::move(read);
    have = true;
    if (part.Whole()) break;
    EXPECT_FALSE(part.stack.empty());
  }
  EXPECT_GE(runs, 2);
  EXPECT_TRUE(part.stopped_by.empty());
  EXPECT_TRUE(part.stack.empty());
  EXPECT_EQ(part.executions, uninterrupted.executions);
  EXPECT_EQ(part.walk_executions, uninterrupted.shard.walk_executions);
  EXPECT_EQ(part.private_executions, uninterrupted.shard.private_executions);
  files[1] = {"resumed", EncodeProofPart(part)};
  absl::StatusOr<MergedProof> merged = MergeProofParts(files);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_TRUE(merged->exhausted);
}

TEST(ProofTest, AnUnfinishedPartMakesTheMergeNotExhausted) {
  std::vector<PartFile> files = AllParts("event-fence", false, 2);
  ExploreSpec spec = Sharded("event-fence", /*abort=*/false, 2, 0);
  spec.max_executions = 3;
  const ExploreReport r = Explore(spec);
  files[0] = {"short", EncodeProofPart(PartOf(spec, r, "max_executions", nullptr))};
  absl::StatusOr<MergedProof> merged = MergeProofParts(files);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_FALSE(merged->exhausted);
  ASSERT_EQ(merged->unfinished.size(), 1u);
  EXPECT_TRUE(absl::StrContains(merged->unfinished[0], "stopped by max_executions"))
      << merged->unfinished[0];
}

absl::Status MergeStatus(const std::vector<PartFile>& files) {
  return MergeProofParts(files).status();
}

TEST(ProofTest, RefusesAMissingADuplicatedOrADamagedPart) {
  const std::vector<PartFile> files = AllParts("event-fence", false, 4);
  ASSERT_TRUE(MergeStatus(files).ok());

  std::vector<PartFile> dropped = files;
  dropped.erase(dropped.begin() + 2);
  EXPECT_TRUE(absl::StrContains(MergeStatus(dropped).message(), "shard 2 of 4 is missing"))
      << MergeStatus(dropped);

  std::vector<PartFile> twice = files;
  twice.push_back({"again", files[1].text});
  EXPECT_TRUE(absl::StrContains(MergeStatus(twice).message(), "shard 1 of 4 is given twice"))
      << MergeStatus(twice);

  std::vector<PartFile> altered = files;
  // A unit claimed finished by hand: the content no longer matches the digest.
  altered[3].text = absl::StrReplaceAll(altered[3].text, {{"\nunits ", "\nunits 1"}});
  const absl::Status s = MergeStatus(altered);
  EXPECT_TRUE(absl::StrContains(s.message(), "part3: the part's content does not match its digest"))
      << s;
}

TEST(ProofTest, RefusesAPartOfAnotherSearchOrBuild) {
  std::vector<PartFile> files = AllParts("event-fence", false, 2);
  std::vector<PartFile> foreign = AllParts("event-fence", true, 2);
  std::vector<PartFile> mixed = {files[0], foreign[1]};
  EXPECT_TRUE(absl::StrContains(MergeStatus(mixed).message(), "a part of another search"))
      << MergeStatus(mixed);

  absl::StatusOr<ProofPart> part = DecodeProofPart(files[1].text);
  ASSERT_TRUE(part.ok()) << part.status();
  part->binary = "fnv1a64:0000000000000000";
  mixed = {files[0], {"rebuilt", EncodeProofPart(*part)}};
  EXPECT_TRUE(absl::StrContains(MergeStatus(mixed).message(), "another executable"))
      << MergeStatus(mixed);

  std::vector<PartFile> three = AllParts("event-fence", false, 3);
  mixed = {files[0], files[1], three[2]};
  EXPECT_TRUE(absl::StrContains(MergeStatus(mixed).message(), "a part of another search") ||
              absl::StrContains(MergeStatus(mixed).message(), "shard 2 of 3"))
      << MergeStatus(mixed);
}

TEST(ProofTest, APartReadsBackAsWritten) {
  ProofPart p;
  p.key = "a key,\twith a tab";
  p.binary = "fnv1a64:0123456789abcdef";
  p.index = 2;
  p.count = 5;
  p.units_seen = 40;
  p.walk_ended = true;
  p.finished = {2, 7, 12, 27, 32};
  p.escapes = {{{0, 1, 1, 2}, 1, true}, {{}, 2, false}};
  p.private_executions = 78;
  p.executions = 1234;
  p.walk_executions = 56;
  p.seconds = 7.25;
  p.sleep_blocked = 9;
  p.stopped_by = "time_budget_s";
  absl::StatusOr<ProofPart> back = DecodeProofPart(EncodeProofPart(p));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->key, p.key);
  EXPECT_EQ(back->binary, p.binary);
  EXPECT_EQ(back->index, 2u);
  EXPECT_EQ(back->count, 5u);
  EXPECT_EQ(back->units_seen, 40u);
  EXPECT_TRUE(back->walk_ended);
  EXPECT_EQ(back->finished, p.finished);
  ASSERT_EQ(back->escapes.size(), 2u);
  EXPECT_EQ(back->escapes[0].path, p.escapes[0].path);
  EXPECT_EQ(back->escapes[0].option, 1u);
  EXPECT_TRUE(back->escapes[0].explored);
  EXPECT_TRUE(back->escapes[1].path.empty());
  EXPECT_FALSE(back->escapes[1].explored);
  EXPECT_EQ(back->private_executions, 78u);
  EXPECT_EQ(back->executions, 1234u);
  EXPECT_EQ(back->walk_executions, 56u);
  EXPECT_DOUBLE_EQ(back->seconds, 7.25);
  EXPECT_EQ(back->stopped_by, "time_budget_s");
  EXPECT_FALSE(back->Whole());  // 5 of its 8 units
  EXPECT_EQ(back->OwnedAmong(40), 8u);
  EXPECT_TRUE(absl::StrContains(EncodeProofPart(p), "\nfinished 0-2,5-6\n"));
}

}  // namespace
}  // namespace stackcheck::properties
