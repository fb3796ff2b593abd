// The engine's contract with strategies and the trace tools: which points are
// asked, what the schedule records, and that the digest is Digest(trace).
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "sim/sim_test_util.h"
#include "sim/simulator.h"
#include "sim/test_strategies.h"
#include "sim/trace/digest.h"

namespace stackcheck::sim {
namespace {

// Counts the points it is asked about, by candidate count.
class Counting : public testing::SeededRandom {
 public:
  Counting(bool every_step) : SeededRandom(3), every_step_(every_step) {}
  std::size_t NextActor(const SchedulingPoint& point) override {
    (point.runnable.size() == 1 ? single : multi)++;
    EXPECT_FALSE(point.runnable.empty());
    for (std::size_t i = 1; i < point.runnable.size(); ++i) {
      EXPECT_LT(point.runnable[i - 1].actor, point.runnable[i].actor);  // sorted
    }
    // Only real choices draw from the generator, so both runs see the same
    // answers where it matters.
    return point.runnable.size() == 1 ? 0 : SeededRandom::NextActor(point);
  }
  bool ObservesEveryStep() const override { return every_step_; }
  int single = 0, multi = 0;

 private:
  bool every_step_;
};

void TwoThreads(Device& d, Host& h, RuntimeObserver&) {
  const testing::Opened o = testing::Open(d);
  std::unique_ptr<Mutex> mu = h.NewMutex("m");
  ThreadId t = h.Spawn("other", [&] {
    MutexLock l(mu.get());
    d.LaunchKernel(o.kernel, testing::Grid(1), testing::Warps(1), testing::Args(0, 2),
                   kLegacyStream);
  });
  {
    MutexLock l(mu.get());
    d.LaunchKernel(o.kernel, testing::Grid(1), testing::Warps(1), testing::Args(0, 1),
                   kLegacyStream);
  }
  h.Join(t);
  d.CtxSynchronize();
}

TEST(Scheduler, SingleCandidatePointsAreAskedOnlyWhenTheStrategyObservesEveryStep) {
  Simulator sim;
  Counting skipping(false), observing(true);
  const ExecutionResult& a = sim.Run(skipping, TwoThreads);
  const std::uint64_t digest = a.digest;
  const std::size_t choices = a.choices.size();
  EXPECT_EQ(skipping.single, 0);
  EXPECT_EQ(static_cast<std::size_t>(skipping.multi), choices);
  const ExecutionResult& b = sim.Run(observing, TwoThreads);
  EXPECT_GT(observing.single, 0);
  // Same seed, same answers at the real choices: the same execution, and the
  // schedule holds only the answers at points with two or more candidates.
  EXPECT_EQ(b.digest, digest);
  EXPECT_EQ(b.choices.size(), choices);
  EXPECT_EQ(b.steps, static_cast<std::uint64_t>(observing.single + observing.multi));
}

TEST(Scheduler, DigestIsTheTraceToolsDigestOfTheTrace) {
  Simulator sim;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    testing::SeededRandom strategy(seed);
    const ExecutionResult& r = sim.Run(strategy, TwoThreads);
    EXPECT_EQ(r.digest, Digest(r.trace));
  }
}

TEST(Scheduler, ActorNamesAndIdsAreStable) {
  Simulator sim;
  testing::NonPreemptive strategy;
  sim.Run(strategy, TwoThreads);
  EXPECT_EQ(sim.ActorName(0), "T0");
  EXPECT_EQ(sim.ActorName(1), "callback");
  EXPECT_EQ(sim.ActorName(2), "gpu:s0");
  EXPECT_EQ(sim.ActorName(3), "T1");
  EXPECT_EQ(sim.view().MutexName(0), "m");
}

}  // namespace
}  // namespace stackcheck::sim
