// The catalogue and the expected-verdicts table agree with each other.
#include "properties/catalogue.h"

#include "absl/container/flat_hash_set.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/expected_verdicts.h"

namespace stackcheck::properties {
namespace {

TEST(Catalogue, NamesAreUniqueAndFindable) {
  absl::flat_hash_set<absl::string_view> names;
  for (const PropertyInfo& p : AllProperties()) {
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    EXPECT_EQ(FindProperty(p.name), &p);
    EXPECT_FALSE(p.description.empty());
    EXPECT_TRUE(p.ObservableOn(kSimBackend)) << p.name << ": the simulator observes everything";
    EXPECT_EQ(p.checker == Checker::kMonitor, !p.monitor_name.empty()) << p.name;
  }
  EXPECT_EQ(names.size(), 11u);
  EXPECT_EQ(FindProperty("no-such-property"), nullptr);
}

TEST(ExpectedVerdicts, RowsNameCatalogueProperties) {
  for (const ExpectedRow& row : ExpectedRows()) {
    const PropertyInfo* p = FindProperty(row.property);
    ASSERT_NE(p, nullptr) << row.property;
    EXPECT_NE(row.expectation, Expectation::kHolds) << "only exceptions are listed";
    // Only a deviation can be accepted, and a deviation is never a bug.
    EXPECT_EQ(row.expectation == Expectation::kAcceptedDeviation, p->is_deviation)
        << row.policy << " " << row.property;
    EXPECT_FALSE(row.why.empty());
  }
}

TEST(ExpectedVerdicts, JudgesVerdicts) {
  EXPECT_EQ(ExpectedVerdict("v1b-callback-lock", "no-deadlock"), Expectation::kViolated);
  EXPECT_EQ(ExpectedVerdict("v2-gcc11", "no-deadlock"), Expectation::kViolated);
  EXPECT_EQ(ExpectedVerdict("v2-gcc11", "bounded-cache"), Expectation::kHolds);
  EXPECT_EQ(ExpectedVerdict("a-new-policy", "no-leak"), Expectation::kHolds);
  EXPECT_TRUE(VerdictMatches(Expectation::kHolds, false));
  EXPECT_FALSE(VerdictMatches(Expectation::kHolds, true));
  EXPECT_TRUE(VerdictMatches(Expectation::kViolated, true));
  EXPECT_FALSE(VerdictMatches(Expectation::kViolated, false));
  EXPECT_TRUE(VerdictMatches(Expectation::kAcceptedDeviation, true));
  EXPECT_TRUE(VerdictMatches(Expectation::kAcceptedDeviation, false));
  EXPECT_TRUE(VerdictMatches(Expectation::kViolatedRarely, true));
  EXPECT_TRUE(VerdictMatches(Expectation::kViolatedRarely, false));
}

}  // namespace
}  // namespace stackcheck::properties

namespace stackcheck::properties {
namespace {

TEST(ExpectedVerdicts, AgreeWithThePolicyRegistry) {
  // A policy that declares it accepts asynchronous completion has the
  // sync-completion deviation accepted, and no other policy does.
  for (const PolicyInfo& policy : AllPolicies()) {
    EXPECT_EQ(ExpectedVerdict(policy.name, "sync-completion") == Expectation::kAcceptedDeviation,
              policy.accepts_async_completion)
        << policy.name;
  }
  // Every row names a registered policy.
  for (const ExpectedRow& row : ExpectedRows()) {
    EXPECT_NE(FindPolicy(row.policy), nullptr) << row.policy;
  }
}

}  // namespace
}  // namespace stackcheck::properties
