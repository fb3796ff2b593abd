// The property suites, one per policy, judged by the expected-verdicts table:
//  - every property the table expects a policy to hold holds over RapidCheck-
//    generated cases (scenario, modes and schedule shrink together; a failure
//    prints RapidCheck's reproduce string and our replay token);
//  - every property the table expects to be violated is found within a budget
//    of campaign executions, and its shrunk counterexample is small.
// Shards (shard_count in BUILD) split the RapidCheck seeds and the hunts.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/policies/registry.h"
#include "core/version.h"
#include "gtest/gtest.h"
#include "properties/campaign.h"
#include "properties/catalogue.h"
#include "properties/expected_verdicts.h"
#include "properties/explore.h"
#include "properties/generators.h"
#include "properties/replay_file.h"
#include "properties/shrinker.h"
#include "rapidcheck/gtest.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties {
namespace {

// One generated case under `policy_name`, checking exactly the properties the
// table expects it to hold. A violation of one of those fails the property.
void ExpectedPropertiesHold(const char* policy_name) {
  const PolicyInfo* policy = FindPolicy(policy_name);
  RC_ASSERT(policy != nullptr);
  std::vector<const PropertyInfo*> holds;
  for (const PropertyInfo* p : AvailableProperties()) {
    if (ExpectedVerdict(policy_name, p->name) == Expectation::kHolds) holds.push_back(p);
  }
  const Case c = *GenCase();
  absl::StatusOr<Execution> e = Execute(c, *policy, holds);
  RC_ASSERT(e.ok());
  if (!e->violation.has_value()) return;
  // Engine-checked properties are always on; one the policy is expected to
  // violate (V3's B1 deadlock) ends the case without counting against it.
  if (ExpectedVerdict(policy_name, e->violation->property) != Expectation::kHolds) return;
  ReplayRecord record;
  record.tool_version = kVersion;
  record.policy = policy_name;
  record.property = e->violation->property;
  record.test_case = c;
  record.test_case.schedule = e->schedule;
  record.digest = e->digest;
  RC_FAIL(absl::StrFormat("%s violated %s: %s\nreplay token: %s", policy_name,
                          e->violation->property, e->violation->message,
                          EncodeReplayToken(record)));
}

RC_GTEST_PROP(V0Nocache, ExpectedPropertiesHold, ()) { ExpectedPropertiesHold("v0-nocache"); }
RC_GTEST_PROP(V1aCallbackUnlock, ExpectedPropertiesHold, ()) {
  ExpectedPropertiesHold("v1a-callback-unlock");
}
RC_GTEST_PROP(V1bCallbackLock, ExpectedPropertiesHold, ()) {
  ExpectedPropertiesHold("v1b-callback-lock");
}
RC_GTEST_PROP(V2Gcc11, ExpectedPropertiesHold, ()) { ExpectedPropertiesHold("v2-gcc11"); }
RC_GTEST_PROP(V3Trunk, ExpectedPropertiesHold, ()) { ExpectedPropertiesHold("v3-trunk"); }
RC_GTEST_PROP(EventFence, ExpectedPropertiesHold, ()) { ExpectedPropertiesHold("event-fence"); }

// The policies above, each with its own suite.
const std::vector<std::string>& PoliciesWithOwnSuite() {
  static const auto* const names = new std::vector<std::string>{
      "v0-nocache", "v1a-callback-unlock", "v1b-callback-lock", "v2-gcc11",
      "v3-trunk",   "event-fence"};
  return *names;
}

// Policies registered since (the registry grows while the table catches up):
// the policy is part of the generated input.
RC_GTEST_PROP(NewPolicies, ExpectedPropertiesHold, ()) {
  std::vector<const char*> others;
  for (const PolicyInfo& p : AllPolicies()) {
    const auto& own = PoliciesWithOwnSuite();
    if (std::find(own.begin(), own.end(), p.name) == own.end()) others.push_back(p.name);
  }
  if (others.empty()) RC_SUCCEED("every registered policy has its own suite");
  ExpectedPropertiesHold(*rc::gen::elementOf(others));
}

TEST(PolicySuites, OwnSuitesNameRegisteredPolicies) {
  for (const std::string& name : PoliciesWithOwnSuite()) {
    EXPECT_NE(FindPolicy(name), nullptr) << name << " is no longer registered";
  }
}

// --- buggy policies: each expected violation is found, and shrinks small ---

// Each policy the table expects to violate something, with those properties.
std::vector<std::pair<const PolicyInfo*, std::vector<std::string>>> BuggyPolicies() {
  std::vector<std::pair<const PolicyInfo*, std::vector<std::string>>> out;
  for (const PolicyInfo& policy : AllPolicies()) {
    std::vector<std::string> targets;
    for (const PropertyInfo& p : AllProperties()) {
      if (ExpectedVerdict(policy.name, p.name) == Expectation::kViolated) {
        targets.emplace_back(p.name);
      }
    }
    if (!targets.empty()) out.emplace_back(&policy, targets);
  }
  return out;
}

// Campaign executions a hunt may take, and the shrunk size every bug reaches.
// (Every single expected violation, rare ones included, is pinned by the
// regression corpus instead: corpus_test replays one file per bug.)
constexpr std::uint64_t kHuntBudget = 20000;
constexpr int kMaxShrunkThreads = 3;
constexpr int kMaxShrunkRegions = 4;

TEST(BuggyPolicies, ViolationFoundWithinBudgetAndShrinksSmall) {
  const testing::TestShard& shard = testing::CurrentShard();
  const auto buggy = BuggyPolicies();
  ASSERT_FALSE(buggy.empty());
  for (size_t k = 0; k < buggy.size(); ++k) {
    if (!shard.Owns(static_cast<int>(k))) continue;
    const PolicyInfo& policy = *buggy[k].first;
    SCOPED_TRACE(policy.name);
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      absl::StatusOr<Hunt> hunt =
          HuntViolation(policy, buggy[k].second, seed, kHuntBudget, absl::Seconds(60));
      ASSERT_TRUE(hunt.ok()) << hunt.status();
      ASSERT_TRUE(hunt->found) << "seed " << seed << ": nothing in " << hunt->executions
                               << " executions";
      ShrinkOptions options;
      options.time_limit = absl::Seconds(30);
      absl::StatusOr<ShrinkResult> shrunk =
          Shrink(hunt->found_case, policy, *FindProperty(hunt->property), options);
      ASSERT_TRUE(shrunk.ok()) << shrunk.status();
      const CaseSize size = SizeOf(shrunk->smallest);
      const CaseSize found = SizeOf(hunt->found_case);
      EXPECT_LE(size.threads, kMaxShrunkThreads) << hunt->property << ": " << size.ToString();
      EXPECT_LE(size.regions, kMaxShrunkRegions) << hunt->property << ": " << size.ToString();
      // Shrinking never grows a case.
      EXPECT_LE(size.threads, found.threads);
      EXPECT_LE(size.ops, found.ops);
    }
  }
}

TEST(BuggyPolicies, V1bDeadlockShrinksToTwoThreadsAndThreeRegions) {
  if (!testing::CurrentShard().Owns(0)) GTEST_SKIP() << "runs on shard 0";
  const PolicyInfo* v1b = FindPolicy("v1b-callback-lock");
  ASSERT_NE(v1b, nullptr);
  // Several seeds: the bound must hold for the deadlock however it was found.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    absl::StatusOr<Hunt> hunt =
        HuntViolation(*v1b, {"no-deadlock"}, seed, kHuntBudget, absl::Seconds(60));
    ASSERT_TRUE(hunt.ok()) << hunt.status();
    ASSERT_TRUE(hunt->found) << "seed " << seed;
    absl::StatusOr<ShrinkResult> shrunk =
        Shrink(hunt->found_case, *v1b, *FindProperty("no-deadlock"));
    ASSERT_TRUE(shrunk.ok()) << shrunk.status();
    const CaseSize size = SizeOf(shrunk->smallest);
    EXPECT_LE(size.threads, 2) << "seed " << seed << ": " << size.ToString();
    EXPECT_LE(size.regions, 3) << "seed " << seed << ": " << size.ToString();
    // The report names the cycle through the callback and the stacks lock.
    EXPECT_NE(shrunk->execution.violation->message.find("callback"), std::string::npos)
        << shrunk->execution.violation->message;
  }
}

}  // namespace
}  // namespace stackcheck::properties
