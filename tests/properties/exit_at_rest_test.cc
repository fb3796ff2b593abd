// An exit's process ends once no other actor can move (sim::Scheduler::
// AwaitRest), where a real process may end at any step after the handlers.
// That reduction must keep every verdict: for every policy (the buggy ones
// included) on small scenarios where a thread exits while another can still
// move - an abort, a fatal out of memory, a rejected launch, mapped data - each
// property is searched for on its own, exhaustively with DPOR, once ending at
// rest and once cutting the other threads at every step
// (sim::SimConfig::exit_cuts_every_step), and the two must find the same
// bugs (violation fingerprints). That the cutting search itself loses nothing is
// reduction_soundness_test's claim about DPOR.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/scenarios.h"
#include "tests/properties/one_property_search.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties {
namespace {

// Under ASan a search costs about 17 times as much.
constexpr int kSampling = testing::kUnderAsan ? 8 : 1;
using testing::kEngineOnly;

struct Config {
  std::string name;
  Case c;
  std::vector<std::string> only;  // these policies (empty: all)
};

std::vector<Config> Configs() {
  std::vector<Config> configs;
  auto regions = [](bool abort, int mapped_vars = 0) {
    Case c;
    c.scenario = RegionsScenario(2, 1, abort, mapped_vars);
    return c;
  };
  configs.push_back({"2x1+abort", regions(true), {}});
  {
    Case c = regions(true);
    c.modes.free_waits_for_streams = false;  // SEM-11's other mode
    configs.push_back({"2x1+abort,free-no-wait", c, {}});
  }
  {
    Case c = regions(false);
    c.scenario.faults.alloc_failure_at_call = 2;  // a fatal out of memory
    configs.push_back({"2x1+alloc-failure", c, {}});
  }
  {
    // One thread's fatal error beside the other's abort: an exit that cuts
    // the aborting thread before it reports loses the abort.
    Case c = regions(true);
    c.scenario.faults.alloc_failure_at_call = 2;
    configs.push_back({"2x1+abort+alloc-failure", c, {}});
  }
  {
    Case c = regions(false);
    c.scenario.faults.launch_failure_at_call = 1;  // a rejected launch
    c.scenario.faults.device_destructors = true;
    configs.push_back({"2x1+rejected-launch,dtors", c, {}});
  }
  // Mapped data: the exit handlers take the device lock beside a thread
  // that maps. The callback policies' cutting searches do not finish here.
  configs.push_back({"2x1 mapped+abort",
                     regions(true, /*mapped_vars=*/1),
                     {"v0-nocache", "v2-gcc11", "v3-trunk", "event-fence"}});
  return configs;
}

std::set<std::string> Violated(const Case& c, const PolicyInfo& policy, const std::string& property,
                               bool cuts, const std::string& label) {
  ExploreSpec spec = testing::OnePropertySpec(c, policy, property, "dfs");
  spec.exit_cuts_every_step = cuts;
  const ExploreReport r = Explore(spec);
  EXPECT_TRUE(r.status.ok()) << label << ": " << r.status;
  EXPECT_TRUE(r.exhausted) << label << ": not exhausted after " << r.executions;
  // By fingerprint, which says which bug: one property's findings may hide
  // another's loss. An end that came at rest was judged when the handlers
  // were done, which a fingerprint names for the event it was judged at.
  std::set<std::string> violated;
  for (const Finding& f : r.findings) {
    violated.insert(
        absl::StrReplaceAll(f.violation.fingerprint, {{"exit-handlers-done", "process-exit"}}));
  }
  return violated;
}

struct Item {
  const Config* config;
  const PolicyInfo* policy;
  std::string property;  // or kEngineOnly
};

std::vector<Item> Items(const std::vector<Config>& configs) {
  std::vector<Item> items;
  for (const Config& config : configs) {
    for (const PolicyInfo& policy : AllPolicies()) {
      if (!config.only.empty() && std::find(config.only.begin(), config.only.end(),
                                            std::string(policy.name)) == config.only.end()) {
        continue;
      }
      for (std::string& property : testing::PropertiesToSearch(policy)) {
        items.push_back({&config, &policy, std::move(property)});
      }
    }
  }
  return items;
}

TEST(ExitAtRestTest, EndingAtRestFindsWhatCuttingAtEveryStepFinds) {
  const testing::TestShard& shard = testing::CurrentShard();
  const std::vector<Config> configs = Configs();
  const std::vector<Item> items = Items(configs);
  int compared = 0;
  int violated = 0;
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (!shard.OwnsSampled(static_cast<int>(k), kSampling)) continue;
    const Item& item = items[k];
    const std::string label =
        absl::StrCat(item.policy->name, " on ", item.config->name, ", ", item.property);
    const std::set<std::string> at_rest =
        Violated(item.config->c, *item.policy, item.property, /*cuts=*/false, label);
    const std::set<std::string> cutting =
        Violated(item.config->c, *item.policy, item.property, /*cuts=*/true, label);
    EXPECT_EQ(at_rest, cutting) << label << ": ending at rest found {"
                                << absl::StrJoin(at_rest, ", ") << "}, cutting at every step {"
                                << absl::StrJoin(cutting, ", ") << "}";
    ++compared;
    violated += at_rest.empty() ? 0 : 1;
  }
  std::printf("shard %d of %d: %d of %zu comparisons, %d with a violation\n", shard.index,
              shard.count, compared, items.size(), violated);
  // Guards against a vacuous pass: the buggy policies violate something here.
  if (shard.count == 1) {
    EXPECT_GT(violated, 0);
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace stackcheck::properties
