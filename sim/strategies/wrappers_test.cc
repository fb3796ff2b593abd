// Tests of the wrappers: metrics and the determinism check.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/strategies/determinism_check.h"
#include "sim/strategies/dfs_strategy.h"
#include "sim/strategies/metrics_strategy.h"
#include "sim/strategies/random_strategy.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;

std::uint32_t SameObject(int, int) { return 1; }

TEST(MetricsStrategy, CountsExecutionsStepsAndPreemptions) {
  DfsStrategy::Options options;
  options.sleep_sets = false;
  DfsStrategy dfs(options);
  MetricsStrategy metrics(dfs);
  toy::System system = toy::Writers(2, 2, SameObject);
  system.threads[0].steps.push_back(toy::Choose(1, 2));
  const std::vector<toy::Outcome> outcomes = toy::RunAll(system, metrics);
  const StrategyMetrics& m = metrics.metrics();
  EXPECT_EQ(m.executions, outcomes.size());
  // Every execution makes one number choice; the other answers are actor
  // choices (points with one runnable actor are not asked).
  std::uint64_t answers = 0, most = 0;
  for (const toy::Outcome& o : outcomes) {
    answers += o.choices.size();
    most = std::max<std::uint64_t>(most, o.choices.size());
  }
  EXPECT_EQ(m.number_choices, outcomes.size());
  EXPECT_EQ(m.actor_choices, answers - outcomes.size());
  EXPECT_EQ(m.max_choices, most);
  EXPECT_EQ(most, 5u);  // A B A B (A alone, not asked), and the number
  // Thread 0 (3 steps) and thread 1 (2): at most A B A B A, 3 preemptions.
  EXPECT_EQ(m.max_preemptions, 3u);
  EXPECT_GT(m.preemptions, 0u);
  EXPECT_THAT(m.Summary(), HasSubstr("executions 20"));
}

TEST(DeterminismCheck, RerunsTheChosenExecutionsAndAcceptsEqualDigests) {
  RandomStrategy random({/*seed=*/4, /*max_executions=*/10});
  DeterminismCheck check(random, {/*check_every=*/3});
  const toy::System system = toy::Writers(3, 2, SameObject);
  int first_runs = 0;
  std::vector<std::uint64_t> rerun_of;
  while (check.NewExecution()) {
    const toy::Outcome o = toy::Run(system, check);
    check.ReportDigest(o.FinalState());
    if (check.is_rerun()) {
      rerun_of.push_back(check.execution());
    } else {
      ++first_runs;
    }
  }
  EXPECT_TRUE(check.status().ok()) << check.status();
  EXPECT_EQ(first_runs, 10);
  EXPECT_EQ(rerun_of, (std::vector<std::uint64_t>{1, 4, 7, 10}));
  EXPECT_EQ(check.reruns(), 4u);
}

TEST(DeterminismCheck, NamesTheExecutionWhoseDigestChanged) {
  RandomStrategy random({/*seed=*/4, /*max_executions=*/10});
  DeterminismCheck check(random, {/*check_every=*/1});
  const toy::System system = toy::Writers(2, 2, SameObject);
  while (check.NewExecution()) {
    const toy::Outcome o = toy::Run(system, check);
    // Pretend the engine leaks state into the third execution's re-run.
    const bool flaky = check.is_rerun() && check.execution() == 3;
    check.ReportDigest(o.FinalState() + (flaky ? 1 : 0));
  }
  EXPECT_EQ(check.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(check.status().message()), HasSubstr("execution 3 is not deterministic"));
  EXPECT_EQ(check.execution(), 3u);  // stopped there
}

TEST(DeterminismCheck, NamesTheExecutionWhoseChoicesChanged) {
  RandomStrategy random({/*seed=*/4, /*max_executions=*/10});
  DeterminismCheck check(random, {/*check_every=*/1});
  ASSERT_TRUE(check.NewExecution());
  check.ReportDigest(toy::Run(toy::Writers(2, 2, SameObject), check).FinalState());
  ASSERT_TRUE(check.NewExecution());
  ASSERT_TRUE(check.is_rerun());
  // The re-run meets a different program: more steps than recorded.
  toy::Run(toy::Writers(2, 3, SameObject), check);
  check.ReportDigest(0);
  EXPECT_THAT(std::string(check.status().message()), HasSubstr("execution 1 is not deterministic"));
  EXPECT_FALSE(check.NewExecution());
}

}  // namespace
}  // namespace stackcheck::sim
