#include "properties/scenario_space.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace stackcheck::properties {
namespace {

ScopeBound Bound(int threads, int ops, int faults, std::vector<std::string> words) {
  ScopeBound b;
  b.max_threads = threads;
  b.max_ops = ops;
  b.max_faults = faults;
  b.words = std::move(words);
  b.free_waits_for_streams = {true};
  b.serial_callback_thread = {true};
  return b;
}

std::vector<std::string> Labels(const ScopeBound& b) {
  absl::StatusOr<std::vector<ScopeScenario>> space = EnumerateScope(b);
  EXPECT_TRUE(space.ok()) << space.status();
  std::vector<std::string> labels;
  if (!space.ok()) return labels;
  for (const ScopeScenario& s : *space) labels.push_back(s.label);
  return labels;
}

// Two words, programs of up to two: 2 + 4 programs; up to two threads as a
// multiset: 6 + 6 * 7 / 2.
TEST(ScenarioSpaceTest, CountsMultisetsOfPrograms) {
  EXPECT_EQ(Labels(Bound(1, 2, 0, {"run", "run-wide"})).size(), 6u);
  EXPECT_EQ(Labels(Bound(2, 2, 0, {"run", "run-wide"})).size(), 6u + 21u);
  ScopeBound modes = Bound(2, 1, 0, {"run"});
  modes.free_waits_for_streams = {true, false};
  modes.serial_callback_thread = {true, false};
  EXPECT_EQ(Labels(modes).size(), 2u * 4u);
}

TEST(ScenarioSpaceTest, SlotRulesLeaveOutNoOpsAndImplicitReleases) {
  const std::vector<std::string> labels = Labels(Bound(1, 2, 0, {"alloc", "free", "run"}));
  const std::vector<std::string> want = {"[run]", "[alloc]", "[run run]", "[run alloc]",
                                         "[alloc run]"};
  EXPECT_EQ(labels, want);
  // update and exit need a full slot; exit after update empties it last.
  const std::vector<std::string> data = Labels(Bound(1, 3, 0, {"enter", "update", "exit"}));
  const std::vector<std::string> want_data = {"[enter]", "[enter update]", "[enter update update]",
                                              "[enter exit enter]"};
  EXPECT_EQ(data, want_data);
}

// One thread of run words, at most one fault: fault-free programs with each
// scenario-wide plan (none, oom@1..K), and programs with one abort alone.
TEST(ScenarioSpaceTest, FaultsWithinTheirBound) {
  ScopeBound b = Bound(1, 2, 1, {"run", "abort", "oom"});
  b.max_fault_call = 3;
  const std::vector<std::string> labels = Labels(b);
  EXPECT_EQ(labels.size(), 2u * (1 + 3) + 3u);
  EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), labels.size());
  EXPECT_EQ(Labels(Bound(1, 2, 0, {"run", "abort", "oom"})).size(), 2u);
}

TEST(ScenarioSpaceTest, ScenariosAreValidAndNumbered) {
  ScopeBound b;
  b.max_threads = 2;
  b.max_ops = 2;
  b.max_faults = 1;
  absl::StatusOr<std::vector<ScopeScenario>> space = EnumerateScope(b);
  ASSERT_TRUE(space.ok()) << space.status();
  std::set<std::string> labels;
  for (const ScopeScenario& s : *space) {
    EXPECT_TRUE(labels.insert(s.label).second) << s.label;
    std::set<RegionId> ids;
    int faults = 0;
    for (const ThreadProgram& t : s.test_case.scenario.threads) {
      for (const HostOp& op : t.ops) {
        if (op.kind != HostOp::Kind::kRun) continue;
        EXPECT_TRUE(ids.insert(op.region.id).second) << s.label;
        EXPECT_NE(op.region.id, kNoRegion);
        faults += op.region.aborts;
      }
    }
    const FaultPlan& f = s.test_case.scenario.faults;
    faults += (f.alloc_failure_at_call != 0) + (f.launch_failure_at_call != 0) +
              f.device_constructors + f.device_destructors;
    EXPECT_LE(faults, 1) << s.label;
  }
}

TEST(ScenarioSpaceTest, BadBoundsAreErrors) {
  EXPECT_FALSE(EnumerateScope(Bound(0, 1, 0, {})).ok());
  EXPECT_FALSE(EnumerateScope(Bound(5, 1, 0, {})).ok());
  EXPECT_FALSE(EnumerateScope(Bound(1, 0, 0, {})).ok());
  EXPECT_FALSE(EnumerateScope(Bound(1, 1, -1, {})).ok());
  EXPECT_FALSE(EnumerateScope(Bound(1, 1, 0, {"jump"})).ok());
  EXPECT_FALSE(EnumerateScope(Bound(1, 1, 0, {"abort"})).ok());
}

}  // namespace
}  // namespace stackcheck::properties
