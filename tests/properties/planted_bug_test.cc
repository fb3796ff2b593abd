// A bug planted in v2-gcc11 breaks a property v2-gcc11 is already known to
// break (no-use-after-free): judged per property it would hide behind the
// known bug; judged by fingerprint, the campaign reports it NEW (which makes
// `stackcheck` exit 1) with its own shrunk counterexample, while plain
// v2-gcc11 under the same budget meets only known bugs.
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "core/policies/v2_gcc11.h"
#include "gtest/gtest.h"
#include "properties/campaign.h"
#include "properties/explore.h"
#include "properties/known_bugs.h"

namespace stackcheck::properties {
namespace {

// v2-gcc11, except that the retry after a failed allocation frees the cached
// block without the stacks lock: under a region that holds the lock and runs
// its kernel on the block.
class PlantedFreeWithoutLock : public V2Gcc11Policy {
 public:
  using V2Gcc11Policy::V2Gcc11Policy;

  DevicePtr DeviceAlloc(std::uint64_t bytes) override {
    StacksFree(/*force=*/false);
    DevicePtr ptr = PlainAlloc(bytes, /*suppress_oom=*/true);
    if (ptr != 0) return ptr;
    block_.Free(ctx_.device);  // the planted mistake: no lock, no wait
    return PlainAlloc(bytes, /*suppress_oom=*/false);
  }
};

std::unique_ptr<Policy> MakePlanted(RuntimeContext& ctx) {
  return std::make_unique<PlantedFreeWithoutLock>(ctx);
}

// Judged as v2-gcc11 (its name), registered nowhere but here.
const PolicyInfo kPlanted = {"v2-gcc11", "v2-gcc11 with a planted free without the lock",
                             &MakePlanted};

constexpr std::uint64_t kExecutions = 30000;

CampaignResult Campaign(const PolicyInfo* policy) {
  CampaignOptions o;
  o.policies = {policy};
  o.executions = kExecutions;
  o.time_budget = absl::Seconds(600);
  o.shrink.max_executions = 20000;  // as regenerate.sh: a small scenario for DPOR
  absl::StatusOr<CampaignResult> r = RunCampaign(o);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : CampaignResult{};
}

TEST(PlantedBug, TheCampaignReportsItNewWithItsOwnCounterexample) {
  const CampaignResult r = Campaign(&kPlanted);
  ASSERT_EQ(r.policies.size(), 1u);
  EXPECT_GT(r.new_bugs(), 0);
  const FingerprintVerdict* planted = nullptr;
  for (const PropertyVerdict& v : r.policies[0].verdicts) {
    for (const FingerprintVerdict& f : v.fingerprints) {
      if (!f.known && v.property->name == "no-use-after-free") planted = &f;
    }
  }
  ASSERT_NE(planted, nullptr) << "no NEW use-after-free";
  // Not in the exit handlers, where the known use-after-free frees.
  EXPECT_FALSE(absl::StrContains(planted->fingerprint, "after free on host thread in exit"))
      << planted->fingerprint;
  EXPECT_TRUE(planted->shrunk);
  EXPECT_FALSE(planted->token.empty());
}

// `check`'s search (Explore, DPOR, known bugs passed) on the scenario of the
// planted bug's counterexample: NEW for the planted policy, nothing NEW for
// v2-gcc11.
TEST(PlantedBug, CheckReportsItNewOnItsScenario) {
  const CampaignResult r = Campaign(&kPlanted);
  ASSERT_EQ(r.policies.size(), 1u);
  const FingerprintVerdict* planted = nullptr;
  for (const PropertyVerdict& v : r.policies[0].verdicts) {
    for (const FingerprintVerdict& f : v.fingerprints) {
      if (!f.known && v.property->name == "no-use-after-free") planted = &f;
    }
  }
  ASSERT_NE(planted, nullptr);
  ExploreSpec spec;
  spec.test_case = planted->counterexample;
  spec.test_case.schedule.clear();
  spec.monitors.kind = MonitorSelection::kOnlyKept;
  spec.strategy = "dfs";
  spec.max_executions = 200000;
  spec.policy = &kPlanted;
  const ExploreReport with_bug = Explore(spec);
  ASSERT_TRUE(with_bug.status.ok()) << with_bug.status;
  ASSERT_NE(with_bug.first(), nullptr) << "dfs did not meet the planted bug";
  EXPECT_FALSE(with_bug.first()->known) << with_bug.first()->violation.fingerprint;
  spec.policy = FindPolicy("v2-gcc11");
  const ExploreReport plain = Explore(spec);
  ASSERT_TRUE(plain.status.ok()) << plain.status;
  EXPECT_EQ(plain.first(), nullptr) << plain.first()->violation.fingerprint;
}

TEST(PlantedBug, PlainV2MeetsOnlyKnownBugs) {
  const CampaignResult r = Campaign(FindPolicy("v2-gcc11"));
  for (const PropertyVerdict& v : r.policies[0].verdicts) {
    for (const FingerprintVerdict& f : v.fingerprints) {
      EXPECT_TRUE(f.known) << "NEW in plain v2-gcc11: " << f.fingerprint;
    }
  }
  EXPECT_EQ(r.new_bugs(), 0);
}

}  // namespace
}  // namespace stackcheck::properties
