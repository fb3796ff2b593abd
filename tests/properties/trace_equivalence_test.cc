// DPOR must reach every equivalence class of executions there is.
//
// reduction_soundness_test compares verdicts, which only catches a wrong
// footprint if some monitor happens to judge the lost executions. This test
// compares what the executions *observed*: two executions that differ only in
// the order of independent steps give every actor the same sequence of
// events (the same driver results, host-word values, lock outcomes, kernel
// order on the stream), so the set of per-actor event sequences over an
// exhaustive search is a property of the equivalence classes it covered. A
// footprint that calls two dependent steps independent (a missed conflict, or
// a missed enabling: a launch that makes an idle stream runnable) loses a
// class DPOR never runs, and with it a sequence other schedules produce.
//
// The reference is random scheduling, which needs no exhaustion: every
// sequence a random schedule observes must be among DPOR's. (Plain DFS, once
// a second reference, finishes none of the cases any more: event-fence at
// 2 x 1 without an abort is 4 % explored after 2 M executions.) Cases: two threads with one region
// each and two with two, under both cuMemFree modes, with mapped data, and a region beside target
// data operations or a user block's free, for every policy and for a racy one
// (tests/properties/racy_policy.h) whose unguarded accesses to its block must be interleaved; three
// threads with one region each, with and without an abort, for v2 and ours. The split search of
// parallel exploration (ExploreSpec::jobs) must observe what DPOR and random schedules observe on
// the 3 x 1 and 2 x 1 + abort cases. Callback workers are left serial: a concurrent worker's actor
// number depends on the order of independent spawns.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/explore.h"
#include "properties/scenarios.h"
#include "sim/event.h"
#include "sim/simulator.h"
#include "tests/properties/racy_policy.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties {
namespace {

// What one execution observed, actor by actor. Left out: virtual time (it
// only stamps events) and the events that say a call *started* waiting,
// since whether a wait blocked first is not an observation (sim/strategies/
// README.md, "Waits").
std::string Observed(const sim::ExecutionResult& r) {
  std::map<sim::ActorId, std::string> by_actor;
  for (const sim::Event& e : r.trace) {
    if (e.kind == sim::EventKind::kDriverCallBlock || e.kind == sim::EventKind::kMutexBlock) {
      continue;
    }
    // Every word of every kind alike: whatever the kind carries is observed.
    const sim::EventWords w = e.words();
    absl::StrAppend(&by_actor[e.actor], static_cast<int>(e.kind), ":", w.a, ",", w.b, ",", w.c, ",",
                    w.d, ",", w.x, ",", w.y, " ");
  }
  std::string out;
  for (const auto& [actor, events] : by_actor) {
    absl::StrAppend(&out, actor, "[", events, "] ");
  }
  if (r.violation) absl::StrAppend(&out, "violation ", r.violation->property);
  return out;
}

struct Search {
  std::set<std::string> observed;
  std::uint64_t executions = 0;
  bool exhausted = false;
};

constexpr std::uint64_t kDporBudget = 100'000;
constexpr std::uint64_t kRandomExecutions = 20'000;
// Under ASan the searches cost more than ten times as much: one item in four
// keeps each shard near a minute and a half of one core.
constexpr int kSampling = testing::kUnderAsan ? 4 : 1;

// split > 0: the split search of ExploreSpec::jobs, on one worker (its
// executions do not depend on the number of workers).
Search Explored(const Case& c, const PolicyInfo& policy, const std::string& strategy,
                std::uint64_t budget, const std::string& label, std::size_t split = 0) {
  Search search;
  ExploreSpec options;
  options.jobs = split > 0 ? 1 : 0;
  options.split_choices = split;
  options.test_case = c;
  options.policy = &policy;
  options.strategy = strategy;
  options.max_executions = budget;
  options.stop = StopRule::kNever;
  // No monitors: a monitor's violation stops an execution at a point that
  // depends on the interleaving, so equivalent executions would be cut
  // differently. The engine's own properties (a deadlock: everyone blocked)
  // end it where every order ends it.
  options.monitors.kind = MonitorSelection::kNone;
  options.on_execution = [&](const sim::ExecutionResult& r) {
    search.observed.insert(Observed(r));
  };
  const ExploreReport r = Explore(options);
  EXPECT_TRUE(r.status.ok()) << label << ": " << r.status;
  search.executions = r.executions;
  search.exhausted = r.exhausted;
  return search;
}

// What random schedules observe, with no monitors (as in Explore).
std::set<std::string> RandomlyObserved(const Case& c, const PolicyInfo& policy,
                                       std::uint64_t seed) {
  std::set<std::string> observed;
  ExploreSpec spec;
  spec.test_case = c;
  spec.policy = &policy;
  spec.strategy = "random";
  spec.strategy_params.seed = seed;
  spec.max_executions = kRandomExecutions;
  spec.stop = StopRule::kNever;
  spec.monitors.kind = MonitorSelection::kNone;
  spec.on_execution = [&](const sim::ExecutionResult& r) { observed.insert(Observed(r)); };
  const ExploreReport r = Explore(spec);
  EXPECT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.executions, kRandomExecutions);
  return observed;
}

// Fails with up to three of the sequences `reference` saw and DPOR did not.
void ExpectCovered(const std::set<std::string>& by_dpor, const std::set<std::string>& reference,
                   const std::string& what, const std::string& label) {
  int missed = 0;
  for (const std::string& o : reference) {
    if (by_dpor.count(o) == 0 && missed++ < 3) {
      ADD_FAILURE() << label << ": DPOR never observed what " << what << " did:\n  " << o;
    }
  }
  EXPECT_EQ(missed, 0) << label << ": " << missed << " of " << reference.size() << " observations "
                       << what << " made";
}

struct Config {
  std::string name;
  Case c;
};

// Two threads of one or two regions, with and without an abort, under both
// cuMemFree modes, with and without mapped data.
//
// With and without an abort: the executions that end in exit() need the
// exit handlers' steps to be program-wide (they change policy state no
// object covers while another thread still reads it) and the step that
// ends the process never to sleep; without either, v2 and v3 at 2 x 1 +
// abort missed 3 of 12 observations.
//
// Mapped data (allocations and synchronous copies under the device lock)
// under the default cuMemFree mode: the waits and lock attempts whose
// reversals the race analysis skips (sim/footprint.h, Footprint::blocking).
// Not 2 x 2 mapped with an abort: millions of executions (a trap's order
// against every device call of the other thread is explored).
void AddTwoThreadConfigs(std::vector<Config>& configs) {
  for (int mapped : {0, 1}) {
    for (int regions : {1, 2}) {
      for (bool abort : {false, true}) {
        for (bool free_waits : {true, false}) {
          if (mapped != 0 && (!free_waits || (regions == 2 && abort))) continue;
          Case c;
          c.scenario = RegionsScenario(2, regions, abort, mapped);
          c.modes.free_waits_for_streams = free_waits;
          configs.push_back(
              {absl::StrCat("2x", regions, abort ? "+abort" : "", free_waits ? "" : ",free-no-wait",
                            mapped != 0 ? ",mapped" : ""),
               c});
        }
      }
    }
  }
}

// Three threads of one region, with and without an abort.
void AddThreeThreadConfigs(std::vector<Config>& configs) {
  for (bool abort : {false, true}) {
    Case c;
    c.scenario = RegionsScenario(3, 1, abort);
    configs.push_back({abort ? "3x1+abort" : "3x1", c});
  }
}

// The host operations besides regions: target enter data and update
// (exit data at the thread's end) beside a region, and a user block freed
// beside one under the cuMemFree that does not wait.
void AddHostOperationConfigs(std::vector<Config>& configs) {
  Case c;
  c.scenario.threads = {
      ThreadProgram{{HostOp::Run(1, /*teams=*/2, /*warps=*/1)}},
      ThreadProgram{{HostOp::EnterData(kMappedVarBytes, /*slot=*/1), HostOp::Update(/*slot=*/1)}}};
  configs.push_back({"run+enter/update/exit", c});
  c.scenario.threads[1].ops = {HostOp::DeviceAlloc(128 * kKiB, /*slot=*/0),
                               HostOp::DeviceFree(/*slot=*/0)};
  c.modes.free_waits_for_streams = false;
  configs.push_back({"run+alloc/free,free-no-wait", c});
}

std::vector<Config> Configs() {
  std::vector<Config> configs;
  AddTwoThreadConfigs(configs);
  AddThreeThreadConfigs(configs);
  AddHostOperationConfigs(configs);
  return configs;
}

// Every registered policy and the racy one.
std::vector<const PolicyInfo*> PoliciesUnderTest() {
  std::vector<const PolicyInfo*> policies;
  for (const PolicyInfo& policy : AllPolicies()) policies.push_back(&policy);
  policies.push_back(&testing::RacyGrowPolicy());
  return policies;
}

bool HasThreeThreads(const Config& config) { return config.c.scenario.threads.size() == 3; }

// Three threads: the policies that must finish them (the others' searches
// run to the budget and would be skipped anyway).
bool RunsOnThreeThreads(const PolicyInfo& policy) {
  return policy.name == std::string("v2-gcc11") || policy.name == std::string("event-fence");
}

// Only the larger cases of policies without a cache or with callbacks; ours
// and v2 must finish every one (two mapped regions: 23,049 and 7,517
// executions; a mapped region and an abort: 7,072 and 4,770).
bool MayExceedDporBudget(const PolicyInfo& policy, const Config& config) {
  return policy.name != std::string("event-fence") && policy.name != std::string("v2-gcc11") &&
         !(policy.name == testing::RacyGrowPolicy().name && config.name == "2x1");
}

// The split search must observe what random schedules and DPOR observe.
void ExpectSplitSearchCovers(const Config& config, const PolicyInfo& policy,
                             const std::set<std::string>& by_random, const Search& by_dpor,
                             const std::string& label) {
  const Search by_split = Explored(config.c, policy, "dfs", kDporBudget, label, 3);
  EXPECT_TRUE(by_split.exhausted) << label << ": the split search did not finish";
  ExpectCovered(by_split.observed, by_random, "random schedules (split search)", label);
  ExpectCovered(by_split.observed, by_dpor.observed, "DPOR (split search)", label);
}

// Compares DPOR's observations with the references' on one policy and
// config; false when DPOR did not finish, so that nothing was compared.
bool CompareObservations(const Config& config, const PolicyInfo& policy, std::uint64_t seed) {
  const std::string label = absl::StrCat(policy.name, " on ", config.name);
  const Search by_dpor = Explored(config.c, policy, "dfs", kDporBudget, label);
  if (!by_dpor.exhausted) {
    EXPECT_TRUE(MayExceedDporBudget(policy, config))
        << label << ": DPOR must finish within " << kDporBudget;
    std::printf("skipped %s: DPOR not exhausted in %llu executions\n", label.c_str(),
                static_cast<unsigned long long>(kDporBudget));
    return false;
  }
  const std::set<std::string> by_random = RandomlyObserved(config.c, policy, seed);
  ExpectCovered(by_dpor.observed, by_random, "random schedules", label);
  // The split search (a few configurations: it costs what DPOR costs).
  if (HasThreeThreads(config) || config.name == std::string("2x1+abort")) {
    ExpectSplitSearchCovers(config, policy, by_random, by_dpor, label);
  }
  std::printf("%s: DPOR %llu executions, %zu observations; random %zu\n", label.c_str(),
              static_cast<unsigned long long>(by_dpor.executions), by_dpor.observed.size(),
              by_random.size());
  return true;
}

TEST(TraceEquivalenceTest, DporObservesEverythingOtherSchedulesObserve) {
  const testing::TestShard& shard = testing::CurrentShard();
  const std::vector<const PolicyInfo*> policies = PoliciesUnderTest();
  int item = 0;
  int compared = 0;
  for (const Config& config : Configs()) {
    for (const PolicyInfo* policy : policies) {
      if (!shard.OwnsSampled(item++, kSampling)) continue;
      if (HasThreeThreads(config) && !RunsOnThreeThreads(*policy)) continue;
      if (CompareObservations(config, *policy, /*seed=*/item)) ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

// event-fence at 2 x 2 with a mapped variable per region and an abort: the
// smallest mapped-and-abort case where both threads map around the trap in
// more than one region, so that the trap's races with the other thread's
// copies, allocations and completion-marker loads (a load is beside the
// trap: Footprint::beside), and the lock sections after it, are all met.
// One shard runs it: about a quarter of a million executions.
TEST(TraceEquivalenceTest, DporObservesEverythingOnTwoMappedRegionsWithAnAbort) {
  const testing::TestShard& shard = testing::CurrentShard();
  if (testing::kUnderAsan || !shard.Owns(shard.count - 1)) GTEST_SKIP();
  const PolicyInfo& policy = *FindPolicy("event-fence");
  Case c;
  c.scenario = RegionsScenario(2, 2, /*abort=*/true, /*mapped=*/1);
  const std::string label = "event-fence on 2x2+abort,mapped";
  const Search by_dpor = Explored(c, policy, "dfs", 1'000'000, label);
  ASSERT_TRUE(by_dpor.exhausted) << label;
  const std::set<std::string> by_random = RandomlyObserved(c, policy, /*seed=*/7);
  ExpectCovered(by_dpor.observed, by_random, "random schedules", label);
  std::printf("%s: DPOR %llu executions, %zu observations; random %zu\n", label.c_str(),
              static_cast<unsigned long long>(by_dpor.executions), by_dpor.observed.size(),
              by_random.size());
}

}  // namespace
}  // namespace stackcheck::properties
