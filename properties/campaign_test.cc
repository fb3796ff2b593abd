// The campaign's determinism contract: with a fixed execution count the
// verdicts, counts and counterexamples do not depend on --jobs or on how many
// shards split the seed space.
#include "properties/campaign.h"

#include <map>
#include <string>
#include <vector>

#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/replay_file.h"

namespace stackcheck::properties {
namespace {

CampaignOptions Options(int jobs, int shard_index, int shard_count) {
  CampaignOptions o;
  o.policies = {FindPolicy("v1b-callback-lock"), FindPolicy("v2-gcc11")};
  o.executions = 240;
  o.time_budget = absl::Seconds(600);  // never the limit: the count is
  o.seed = 7;
  o.jobs = jobs;
  o.shard_index = shard_index;
  o.shard_count = shard_count;
  o.shrink.max_executions = 400;
  o.shrink.time_limit = absl::Seconds(600);
  return o;
}

void ExpectSameVerdicts(const CampaignResult& a, const CampaignResult& b, const std::string& what) {
  ASSERT_EQ(a.policies.size(), b.policies.size()) << what;
  EXPECT_EQ(a.executions, b.executions) << what;
  for (size_t i = 0; i < a.policies.size(); ++i) {
    const PolicyResult& x = a.policies[i];
    const PolicyResult& y = b.policies[i];
    ASSERT_EQ(x.policy, y.policy) << what;
    ASSERT_EQ(x.verdicts.size(), y.verdicts.size());
    for (size_t k = 0; k < x.verdicts.size(); ++k) {
      const PropertyVerdict& v = x.verdicts[k];
      const PropertyVerdict& w = y.verdicts[k];
      SCOPED_TRACE(what + ": " + x.policy->name + " " + std::string(v.property->name));
      EXPECT_EQ(v.checked, w.checked);
      EXPECT_EQ(v.violated, w.violated);
      EXPECT_EQ(v.fixed, w.fixed);
      ASSERT_EQ(v.fingerprints.size(), w.fingerprints.size());
      for (size_t f = 0; f < v.fingerprints.size(); ++f) {
        EXPECT_EQ(v.fingerprints[f].fingerprint, w.fingerprints[f].fingerprint);
        EXPECT_EQ(v.fingerprints[f].found_at, w.fingerprints[f].found_at);
        EXPECT_EQ(v.fingerprints[f].met, w.fingerprints[f].met);
        EXPECT_EQ(v.fingerprints[f].token, w.fingerprints[f].token);
      }
      if (!v.violated || !w.violated) continue;
      EXPECT_EQ(v.found_at, w.found_at);
      EXPECT_TRUE(v.counterexample == w.counterexample);
      EXPECT_EQ(v.token, w.token);
    }
  }
}

TEST(Campaign, ResultIndependentOfJobsAndShards) {
  absl::StatusOr<CampaignResult> one = RunCampaign(Options(1, 0, 1));
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->executions, 480u);
  // Something was found, so counterexamples are compared too.
  bool any_violation = false;
  for (const PropertyVerdict& v : one->policies[0].verdicts) any_violation |= v.violated;
  ASSERT_TRUE(any_violation);

  absl::StatusOr<CampaignResult> two_jobs = RunCampaign(Options(2, 0, 1));
  ASSERT_TRUE(two_jobs.ok()) << two_jobs.status();
  ExpectSameVerdicts(*one, *two_jobs, "2 jobs");

  std::vector<CampaignResult> shards;
  for (int s = 0; s < 3; ++s) {
    absl::StatusOr<CampaignResult> r = RunCampaign(Options(1, s, 3));
    ASSERT_TRUE(r.ok()) << r.status();
    shards.push_back(*std::move(r));
  }
  ExpectSameVerdicts(*one, MergeShards(std::move(shards)), "3 shards");
}

TEST(Campaign, RejectsBadOptions) {
  EXPECT_FALSE(RunCampaign(Options(0, 0, 1)).ok());
  EXPECT_FALSE(RunCampaign(Options(1, 3, 3)).ok());
  EXPECT_FALSE(RunCampaign(Options(1, 0, 0)).ok());
}

TEST(Campaign, ViolationsComeWithReplayableTokens) {
  CampaignOptions o = Options(1, 0, 1);
  o.policies = {FindPolicy("v1b-callback-lock")};
  absl::StatusOr<CampaignResult> r = RunCampaign(o);
  ASSERT_TRUE(r.ok()) << r.status();
  for (const PropertyVerdict& v : r->policies[0].verdicts) {
    if (!v.violated) continue;
    absl::StatusOr<ReplayRecord> record = DecodeReplayToken(v.token);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->property, v.property->name);
    EXPECT_TRUE(record->test_case == v.counterexample);
  }
}

TEST(Campaign, PlansDependOnSeedAndIndexOnly) {
  const PolicyInfo* v2 = FindPolicy("v2-gcc11");
  const std::vector<const PropertyInfo*> available = AvailableProperties();
  const CaseGens gens;
  for (std::uint64_t i = 0; i < 30; ++i) {
    const PlannedExecution a = PlanExecution(gens, 3, i, *v2, available);
    const PlannedExecution b = PlanExecution(CaseGens(), 3, i, *v2, available);
    EXPECT_TRUE(a.test_case == b.test_case);
    EXPECT_EQ(a.strategy, b.strategy);
    EXPECT_EQ(a.strategy_seed, b.strategy_seed);
    EXPECT_EQ(a.checked, b.checked);
  }
  // Every explorer and every monitored property gets executions.
  std::map<absl::string_view, int> explorers;
  std::vector<const PropertyInfo*> focused;
  for (std::uint64_t i = 0; i < 60; ++i) {
    const PlannedExecution p = PlanExecution(gens, 3, i, *v2, available);
    ++explorers[p.strategy];
    if (p.checked.size() == 1) focused.push_back(p.checked[0]);
  }
  for (absl::string_view name : kPortfolio) EXPECT_EQ(explorers[name], 20) << name;
  for (const PropertyInfo* p : available) {
    if (p->checker != Checker::kMonitor) continue;
    EXPECT_NE(std::find(focused.begin(), focused.end(), p), focused.end()) << p->name;
  }
}

}  // namespace
}  // namespace stackcheck::properties
