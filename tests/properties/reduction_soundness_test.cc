// Partial-order reduction must not lose a verdict: for every policy (the
// buggy ones included) on small two-thread scenarios, under several
// simulator modes and faults, each property is searched for on its own (only
// its monitor on; see properties/explore.h; one at a time because an execution stops at its first
// violation) by
//  - plain DFS within a preemption bound K (no reduction: the reference),
//  - sleep sets within the same bound, which must agree with it exactly,
//  - DPOR without a bound, which must find everything the bounded plain
//    search finds (it covers every schedule, the bounded search a subset).
//  - the same DPOR split into units explored by two worker threads
//    (ExploreSpec::jobs), and into three shards that share nothing
//    (ExploreSpec::shard, their findings together), which must find
//    everything plain DFS finds too (three threads).
// Scenarios: three threads of one region (within one preemption, v2 and
// ours; with an abort, within two); two threads of one region, with and without an abort, with
// mapped data, under both cuMemFree modes and with faults (out of memory,
// device destructors); a region beside user allocations and
// frees, and beside target enter data / update / exit data; GCC 12.2's
// target.c (RuntimeOptions::shipped_target) after a failed mapping.
// A footprint that declares two conflicting steps independent shows up here
// as a property plain DFS violates and a reduced search misses. Besides the
// registered policies, a racy one (tests/properties/racy_policy.h) touches its
// block outside its lock: its unguarded accesses must be explored as such.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/scenarios.h"
#include "tests/properties/one_property_search.h"
#include "tests/properties/racy_policy.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties {
namespace {

constexpr int kBound = 2;
// Under ASan a comparison costs about 17 times as much: one in eight keeps
// the costliest shard near a minute of one core.
constexpr int kSampling = testing::kUnderAsan ? 8 : 1;
using testing::kEngineOnly;

struct Config {
  Config(std::string name_in, Case c_in, int bound_in = kBound,
         std::vector<std::string> only_in = {})
      : name(std::move(name_in)), c(std::move(c_in)), bound(bound_in), only(std::move(only_in)) {}
  std::string name;
  Case c;
  int bound = kBound;  // of the plain and sleep-set searches
  // Only these policies (by name; empty: all): three threads cost the
  // callback policies tens of thousands of DPOR executions per property.
  std::vector<std::string> only;
};

// `threads` threads of one region each.
Case Regions(int threads, bool abort, int mapped_vars = 0) {
  Case c;
  c.scenario = RegionsScenario(threads, 1, abort, mapped_vars);
  return c;
}

// A region on one thread and `ops` on another.
Case RegionBeside(std::vector<HostOp> ops) {
  Case c;
  ThreadProgram t0, t1;
  t0.ops = {HostOp::Run(1, /*teams=*/2, /*warps=*/1)};
  t1.ops = std::move(ops);
  c.scenario.threads = {t0, t1};
  return c;
}

std::vector<Config> Configs() {
  const std::vector<std::string> v2_and_ours = {"v2-gcc11", "event-fence"};
  std::vector<Config> configs;
  configs.push_back({"2x1", Regions(2, false)});
  // Three threads, within one preemption (plain DFS within two runs tens of
  // thousands of executions per property).
  configs.push_back({"3x1", Regions(3, false), 1, v2_and_ours});
  // Three threads and an abort, within two preemptions: the exit handlers'
  // own footprints against two other threads (36 k and 76 k plain DFS
  // executions per property).
  configs.push_back({"3x1+abort", Regions(3, true), 2, v2_and_ours});
  configs.push_back({"2x1+abort", Regions(2, true)});
  {
    Case c = Regions(2, true);
    c.modes.free_waits_for_streams = false;  // SEM-11's other mode
    configs.push_back({"2x1+abort,free-no-wait", c});
  }
  {
    Case c = Regions(2, false);
    c.modes.serial_callback_thread = false;  // SEM-07's other mode
    configs.push_back({"2x1,concurrent-callbacks", c});
  }
  {
    Case c = Regions(2, false);
    c.scenario.faults.alloc_failure_at_call = 2;
    configs.push_back({"2x1+alloc-failure", c});
  }
  // A user allocation beside a region (the soft limit, user frees).
  configs.push_back({"run+alloc", RegionBeside({HostOp::DeviceAlloc(64 * kKiB, /*slot=*/0)})});
  // Mapped data: allocations and synchronous copies under the device lock,
  // where the race analysis skips the reversals of waits and lock attempts
  // it calls irreversible (sim/footprint.h, Footprint::blocking). With an
  // abort it is trace_equivalence_test's: ~100 k DPOR executions per
  // property would not fit a shard here.
  configs.push_back({"2x1 mapped", Regions(2, false, /*mapped_vars=*/1)});
  // Target data beside a region: enter data (an allocation and a
  // synchronous copy under the device lock), update (a copy) and, at the
  // thread's end, exit data (a copy back and a free).
  configs.push_back(
      {"run+enter/update/exit",
       RegionBeside({HostOp::EnterData(kMappedVarBytes, /*slot=*/1), HostOp::Update(/*slot=*/1)})});
  {
    // A user allocation freed beside a running kernel, with a cuMemFree that
    // does not wait for the streams (SEM-11).
    Case c =
        RegionBeside({HostOp::DeviceAlloc(128 * kKiB, /*slot=*/0), HostOp::DeviceFree(/*slot=*/0)});
    c.modes.free_waits_for_streams = false;
    configs.push_back({"run+alloc/free,free-no-wait", c});
  }
  {
    // GCC 12.2's target.c (shipped_target): a region that resolved the
    // device before another thread's fatal exit closed it enters the plugin
    // through a point of its own, and dies of SIGSEGV there (no-crash).
    Case c = Regions(2, false, /*mapped_vars=*/1);
    c.scenario.faults.alloc_failure_at_call = 3;
    c.scenario.shipped_target = true;
    configs.push_back({"2x1 mapped+alloc-failure,shipped-target", c, kBound, v2_and_ours});
  }
  {
    // Device destructors: a kernel at close.
    Case c = Regions(2, false);
    c.scenario.faults.device_destructors = true;
    configs.push_back({"2x1+dtors", c});
  }
  return configs;
}

// The properties violated in some execution of one search: only `property`'s
// monitor on (or none, for kEngineOnly), and past violations to the end, so
// that no-deadlock found in one execution cannot hide `property` in another.
std::set<std::string> Violated(const Case& c, const PolicyInfo& policy, const std::string& property,
                               const std::string& strategy, int bound, const std::string& label,
                               int jobs = 0, std::uint32_t shards = 0) {
  ExploreSpec spec = testing::OnePropertySpec(c, policy, property, strategy);
  // A split search (properties/explore.h): the nodes of the first three
  // choices are the top shared by two threads, or walked by every shard.
  spec.jobs = jobs;
  spec.split_choices = 3;
  spec.strategy_params.preemption_bound = bound;
  std::set<std::string> violated;
  for (std::uint32_t index = 0; index < std::max<std::uint32_t>(shards, 1); ++index) {
    spec.shard.count = shards;
    spec.shard.index = index;
    const ExploreReport r = Explore(spec);
    EXPECT_TRUE(r.status.ok()) << label << ": " << r.status;
    EXPECT_TRUE(r.exhausted) << label << ": not exhausted after " << r.executions;
    for (const Finding& f : r.findings) violated.insert(f.violation.property);
  }
  return violated;
}

// Whether the search found `property` (for kEngineOnly: anything).
bool Found(const std::set<std::string>& violated, const std::string& property) {
  return property == kEngineOnly ? !violated.empty() : violated.count(property) > 0;
}

// One comparison: a property searched for under a policy on a config.
struct Item {
  const Config* config;
  const PolicyInfo* policy;
  std::string property;  // or kEngineOnly
};

// Every comparison, in an order every shard sees the same. Shards take items
// one by one, not whole config x policy pairs: a few pairs (v1b's with an
// abort above all) cost as much as all the others together, spread over
// their properties, so dealing single comparisons keeps the shards even.
std::vector<Item> Items(const std::vector<Config>& configs) {
  std::vector<const PolicyInfo*> policies;
  for (const PolicyInfo& policy : AllPolicies()) policies.push_back(&policy);
  policies.push_back(&testing::RacyGrowPolicy());
  std::vector<Item> items;
  for (const Config& config : configs) {
    for (const PolicyInfo* policy_ptr : policies) {
      const PolicyInfo& policy = *policy_ptr;
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

TEST(ReductionSoundnessTest, ReducedSearchesFindEveryViolationPlainDfsFinds) {
  const testing::TestShard& shard = testing::CurrentShard();
  const std::vector<Config> configs = Configs();
  const std::vector<Item> items = Items(configs);
  int compared = 0;
  int violated = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    if (!shard.OwnsSampled(static_cast<int>(k), kSampling)) continue;
    const Item& item = items[k];
    const std::string label =
        absl::StrCat(item.policy->name, " on ", item.config->name, ", ", item.property);
    // Within the bound: plain DFS, and dfs (sleep sets alone under a bound);
    // without one: dfs with DPOR and sleep sets.
    const Case& c = item.config->c;
    const int bound = item.config->bound;
    const std::set<std::string> by_plain =
        Violated(c, *item.policy, item.property, "plain-dfs", bound, label);
    const std::set<std::string> by_sleep =
        Violated(c, *item.policy, item.property, "dfs", bound, label);
    const std::set<std::string> by_dpor =
        Violated(c, *item.policy, item.property, "dfs", -1, label);
    // The split search on three threads only: elsewhere it would double
    // the cost of a shard (trace_equivalence_test runs it with an abort).
    const bool split = item.config->c.scenario.threads.size() == 3;
    const std::set<std::string> by_split =
        split ? Violated(c, *item.policy, item.property, "dfs", -1, label, /*jobs=*/2) : by_dpor;
    const std::set<std::string> by_shards =
        split ? Violated(c, *item.policy, item.property, "dfs", -1, label, 0, /*shards=*/3)
              : by_dpor;
    EXPECT_EQ(by_sleep, by_plain) << label << ": sleep sets within bound " << bound;
    for (const std::string& p : by_plain) {
      EXPECT_TRUE(by_dpor.count(p)) << label << ": DPOR missed " << p << ", which plain DFS found";
      EXPECT_TRUE(by_split.count(p))
          << label << ": the split DPOR search missed " << p << ", which plain DFS found";
      EXPECT_TRUE(by_shards.count(p))
          << label << ": the sharded DPOR search missed " << p << ", which plain DFS found";
    }
    ++compared;
    violated += Found(by_plain, item.property) ? 1 : 0;
  }
  std::printf("shard %d of %d: %d of %zu comparisons\n", shard.index, shard.count, compared,
              items.size());
  // Guards against a vacuous pass: the buggy policies violate something.
  if (shard.count == 1) {
    EXPECT_GT(violated, 0);
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace stackcheck::properties
