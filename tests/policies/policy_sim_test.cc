// The policies on the simulator: scenarios explored under random schedules
// with every monitor on, in both SEM-11 modes (cuMemFree waits / does not).
// What the sequential fake cannot show - interleavings of host threads, the
// GPU and the callback thread - is checked here.
//
// For a policy that accepts async completion, the "sync-completion" monitor is
// left out of the hazard search (properties::MonitorSelection::kAll): it fires
// first in nearly every execution and would stop it before any later
// violation could show.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/scenarios.h"
#include "sim/sim_config.h"

namespace stackcheck {
namespace {

constexpr int kExecutions = 300;

// Violated property -> one example message, over both SEM-11 modes.
using Findings = std::map<std::string, std::string>;

// Every property the simulator checks, but a deviation the policy accepts
// unless `with_sync_completion`.
Findings Explore(const PolicyInfo& policy, const Scenario& scenario,
                 bool with_sync_completion = false) {
  Findings found;
  for (bool free_waits : {true, false}) {
    properties::ExploreSpec spec;
    spec.test_case.scenario = scenario;
    spec.test_case.modes = sim::SimModes{};
    spec.test_case.modes.free_waits_for_streams = free_waits;
    spec.policy = &policy;
    spec.monitors.kind = with_sync_completion ? properties::MonitorSelection::kEvery
                                              : properties::MonitorSelection::kAll;
    spec.strategy = "random";
    spec.strategy_params.seed = 20261202;
    spec.max_executions = kExecutions;
    spec.stop = properties::StopRule::kNever;
    const properties::ExploreReport r = properties::Explore(spec);
    EXPECT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(r.executions, static_cast<std::uint64_t>(kExecutions));
    for (const properties::Finding& f : r.findings) {
      found.emplace(f.violation.property,
                    absl::StrCat(free_waits ? "[free waits] " : "[free does not wait] ",
                                 f.violation.message));
    }
  }
  return found;
}

std::set<std::string> Properties(const Findings& findings) {
  std::set<std::string> names;
  for (const auto& [property, message] : findings) names.insert(property);
  return names;
}

std::string Describe(const Findings& findings) {
  return absl::StrJoin(findings, "\n", absl::PairFormatter(": "));
}

using Set = std::set<std::string>;

// The scenarios explored: the catalogue's race rows, named in the table below.
constexpr const char* kScenarios[] = {
    "race-grow", "race-abort",  "race-abort+cdtors", "race-soft-limit",
    "race-oom",  "race-stress", "race-stress+abort", "race-abort-while-mapping",
};

const Scenario& Named(absl::string_view name) {
  const properties::NamedScenario* s = properties::FindScenario(name);
  if (s == nullptr) {
    ADD_FAILURE() << "no scenario '" << name << "' in properties/scenarios.cc";
    static const Scenario* const empty = new Scenario;
    return *empty;
  }
  return s->scenario;
}

// What exploring (policy, scenario) must find, and may find: any violation
// outside `allowed` fails the test, and so does a `required` one not found.
// Pairs not listed must find nothing.
struct Verdict {
  const char* policy;
  const char* scenario;
  Set required;
  Set allowed;  // besides `required`
};

// v0: no lock, so with several host threads one thread's
// cuCtxSynchronize reports another thread's trap against its own region;
// and an injected OOM's fatal closes the device under another thread's
// region, whose block is never freed.
std::vector<Verdict> V0NoCacheVerdicts() {
  return {
      {"v0-nocache", "race-abort", {"abort-attribution"}, {}},
      {"v0-nocache", "race-abort+cdtors", {"abort-attribution"}, {}},
      {"v0-nocache", "race-stress", {}, {"no-leak"}},
      {"v0-nocache", "race-stress+abort", {}, {"abort-attribution", "no-leak"}},
      {"v0-nocache", "race-abort-while-mapping", {}, {"abort-attribution"}},
  };
}

// v1a: the callback unlocks the launching thread's mutex; no soft limit.
std::vector<Verdict> V1aCallbackUnlockVerdicts() {
  return {
      {"v1a-callback-unlock", "race-grow", {"mutex-discipline"}, {}},
      {"v1a-callback-unlock",
       "race-abort",
       {"mutex-discipline"},
       {"abort-attribution", "no-driver-call-in-callback", "no-deadlock"}},
      {"v1a-callback-unlock",
       "race-abort+cdtors",
       {"mutex-discipline"},
       {"abort-attribution", "no-driver-call-in-callback", "no-deadlock"}},
      {"v1a-callback-unlock", "race-soft-limit", {"bounded-cache"}, {"mutex-discipline"}},
      {"v1a-callback-unlock",
       "race-oom",
       {"mutex-discipline"},
       {"no-use-after-free", "bounded-cache"}},
      {"v1a-callback-unlock",
       "race-abort-while-mapping",
       {},
       {"mutex-discipline", "abort-attribution", "no-driver-call-in-callback", "no-deadlock"}},
      {"v1a-callback-unlock",
       "race-stress",
       {"mutex-discipline"},
       {"no-use-after-free", "bounded-cache", "no-leak"}},
      {"v1a-callback-unlock",
       "race-stress+abort",
       {},
       {"mutex-discipline", "abort-attribution", "no-driver-call-in-callback", "no-deadlock",
        "no-use-after-free", "bounded-cache", "no-leak"}},
  };
}

// v1b: growth holds the lock while waiting for the callback that needs
// it; aborts are blamed on the last region launched.
std::vector<Verdict> V1bCallbackLockVerdicts() {
  return {
      {"v1b-callback-lock", "race-grow", {"no-deadlock"}, {"no-use-after-free"}},
      {"v1b-callback-lock",
       "race-abort",
       {"abort-attribution"},
       {"no-driver-call-in-callback", "no-use-after-free", "no-deadlock"}},
      {"v1b-callback-lock",
       "race-abort+cdtors",
       {"abort-attribution"},
       {"no-driver-call-in-callback", "no-use-after-free", "no-deadlock"}},
      {"v1b-callback-lock",
       "race-soft-limit",
       {"no-deadlock"},
       {"bounded-cache", "no-use-after-free"}},
      {"v1b-callback-lock", "race-oom", {"no-deadlock"}, {"no-use-after-free", "bounded-cache"}},
      // A fatal exit's close reads the block without the stacks lock (data-race).
      {"v1b-callback-lock",
       "race-abort-while-mapping",
       {},
       {"abort-attribution", "no-driver-call-in-callback", "no-deadlock", "data-race"}},
      {"v1b-callback-lock",
       "race-stress",
       {"no-deadlock"},
       {"no-use-after-free", "no-leak", "bounded-cache", "data-race"}},
      {"v1b-callback-lock",
       "race-stress+abort",
       {},
       {"no-deadlock", "abort-attribution", "no-use-after-free", "no-leak",
        "no-driver-call-in-callback", "bounded-cache", "data-race"}},
  };
}

// v2: the fatal error is raised with the stacks lock held and the exit
// handler's close destroys it (EBUSY: it stays locked); an allocation
// on another thread holds the device lock while it waits for the
// stacks lock, and the exit handler waits for the device lock: the
// exit-time hang; a copy on another thread meets the abort first and
// prints no hint.
std::vector<Verdict> V2Gcc11Verdicts() {
  return {
      {"v2-gcc11", "race-abort", {"mutex-discipline"}, {}},
      {"v2-gcc11", "race-abort+cdtors", {"mutex-discipline"}, {}},
      {"v2-gcc11", "race-stress", {}, {"mutex-discipline", "no-deadlock"}},
      {"v2-gcc11",
       "race-stress+abort",
       {},
       {"mutex-discipline", "abort-attribution", "no-deadlock"}},
      {"v2-gcc11",
       "race-abort-while-mapping",
       {"no-deadlock"},
       {"mutex-discipline", "abort-attribution"}},
  };
}

// v3: as v2 (after an abort the destructor's look-up fails before it
// takes the lock).
std::vector<Verdict> V3TrunkVerdicts() {
  return {
      {"v3-trunk", "race-abort", {"mutex-discipline"}, {}},
      {"v3-trunk", "race-abort+cdtors", {"mutex-discipline"}, {}},
      {"v3-trunk", "race-stress", {}, {"mutex-discipline", "no-deadlock"}},
      {"v3-trunk",
       "race-stress+abort",
       {},
       {"mutex-discipline", "abort-attribution", "no-deadlock"}},
      {"v3-trunk",
       "race-abort-while-mapping",
       {"no-deadlock"},
       {"mutex-discipline", "abort-attribution"}},
  };
}

// event-fence has no rows: nothing, anywhere.
const std::vector<Verdict>& Verdicts() {
  static const auto* verdicts = [] {
    auto* all = new std::vector<Verdict>;
    for (const std::vector<Verdict>& rows :
         {V0NoCacheVerdicts(), V1aCallbackUnlockVerdicts(), V1bCallbackLockVerdicts(),
          V2Gcc11Verdicts(), V3TrunkVerdicts()}) {
      all->insert(all->end(), rows.begin(), rows.end());
    }
    return all;
  }();
  return *verdicts;
}

const Verdict* FindVerdict(absl::string_view policy, absl::string_view scenario) {
  for (const Verdict& v : Verdicts()) {
    if (policy == v.policy && scenario == v.scenario) return &v;
  }
  return nullptr;
}

TEST(PolicySimVerdictsTest, EveryRowNamesAnExploredScenarioAndPolicy) {
  for (const Verdict& v : Verdicts()) {
    EXPECT_NE(FindPolicy(v.policy), nullptr) << v.policy;
    EXPECT_NE(
        std::find(std::begin(kScenarios), std::end(kScenarios), absl::string_view(v.scenario)),
        std::end(kScenarios))
        << v.scenario;
  }
}

class PolicySimTest : public ::testing::TestWithParam<const PolicyInfo*> {};

TEST_P(PolicySimTest, FindsWhatIsExpectedAndNothingElse) {
  const PolicyInfo& policy = *GetParam();
  for (const char* name : kScenarios) {
    SCOPED_TRACE(name);
    const Findings found = Explore(policy, Named(name));
    const Verdict* verdict = FindVerdict(policy.name, name);
    Set required, allowed;
    if (verdict != nullptr) {
      required = verdict->required;
      allowed = verdict->allowed;
      allowed.insert(required.begin(), required.end());
    }
    for (const auto& [property, message] : found) {
      EXPECT_EQ(allowed.count(property), 1u) << "unexpected: " << property << ": " << message;
    }
    for (const std::string& property : required) {
      EXPECT_EQ(found.count(property), 1u) << "not found: " << property << "\n" << Describe(found);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicySimTest, ::testing::ValuesIn([] {
                           std::vector<const PolicyInfo*> all;
                           for (const PolicyInfo& p : AllPolicies()) all.push_back(&p);
                           return all;
                         }()),
                         [](const ::testing::TestParamInfo<const PolicyInfo*>& info) {
                           std::string name = info.param->name;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(EventFenceSimTest, ItsOnlyDeviationIsAsyncCompletion) {
  Findings found = Explore(*FindPolicy("event-fence"), Named("race-stress+abort"),
                           /*with_sync_completion=*/true);
  EXPECT_EQ(Properties(found), Set{"sync-completion"}) << Describe(found);
}

// B1 as trunk has it: a rejected launch (not sticky) is fatal with the
// stacks lock held; the exit path's "__mgomp" destructor relocks it.
TEST(V3TrunkSimTest, B1IsTheOwnerRelockingTheStacksLockAtExit) {
  Findings found = Explore(*FindPolicy("v3-trunk"), Named("rejected-launch-with-destructors"));
  EXPECT_NE(found["mutex-discipline"].find("relock by the owner"), std::string::npos)
      << Describe(found);
}

TEST(V1bCallbackLockSimTest, TheDeadlockCycleRunsThroughTheCallback) {
  Findings found = Explore(*FindPolicy("v1b-callback-lock"), Named("race-grow"));
  EXPECT_NE(found["no-deadlock"].find("callback waits for mutex 'stacks lock'"), std::string::npos)
      << Describe(found);
}

}  // namespace
}  // namespace stackcheck
