#include "hardware/backend_compare.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stackcheck::hardware {
namespace {

using ::testing::HasSubstr;

SimSide SimHolds(bool exhaustive = true) {
  SimSide s;
  s.executions = 12;
  s.exhaustive = exhaustive;
  s.search = exhaustive ? "exhaustive DPOR, 12 executions"
                        : "2000 DPOR + 100 random executions, not exhaustive";
  return s;
}

SimSide SimViolated() {
  SimSide s = SimHolds();
  s.violated = true;
  s.message = "deadlock: callback waits for 'stacks lock'";
  s.token = "sc1.TOKEN";
  return s;
}

HwSide HwRuns(int runs, int violated) {
  HwSide h;
  h.runs = runs;
  h.violated_runs = violated;
  if (violated > 0) h.evidence = "watchdog: host-1 in cuCtxSynchronize";
  return h;
}

HwSide Steered(HwSide h, int runs, int reproduced) {
  h.steered = true;
  h.steering = "start delays [0, 20ms], kernels at least 100ms";
  h.steered_runs = runs;
  h.reproduced = reproduced;
  return h;
}

TEST(CompareBackends, NeitherFindsAViolation) {
  const RowComparison c = CompareBackends(SimHolds(), HwRuns(18, 0));
  EXPECT_EQ(c.status, RowStatus::kHoldsOnBoth);
  EXPECT_THAT(c.text, HasSubstr("exhaustive DPOR, 12 executions"));
  EXPECT_FALSE(Disagrees(c.status));
}

TEST(CompareBackends, BothFindItInFreeRuns) {
  const RowComparison c = CompareBackends(SimViolated(), HwRuns(3, 2));
  EXPECT_EQ(c.status, RowStatus::kConfirmed);
  EXPECT_THAT(c.text, HasSubstr("confirmed on hardware (free runs 2 of 3)"));
  EXPECT_FALSE(Disagrees(c.status));
}

TEST(CompareBackends, SteeredCounterexampleReproducesIt) {
  const RowComparison c = CompareBackends(SimViolated(), Steered(HwRuns(3, 0), 3, 3));
  EXPECT_EQ(c.status, RowStatus::kConfirmed);
  EXPECT_THAT(c.text, HasSubstr("steered 3 of 3"));
}

TEST(CompareBackends, SimulatorOnlyWithoutSteeringIsNotReached) {
  const RowComparison c = CompareBackends(SimViolated(), HwRuns(18, 0));
  EXPECT_EQ(c.status, RowStatus::kNotReached);
  EXPECT_EQ(c.text, "not reached (sim: VIOLATED, token sc1.TOKEN)");
  EXPECT_FALSE(Disagrees(c.status));
}

TEST(CompareBackends, NotSteerableIsNoMismatch) {
  HwSide h = HwRuns(18, 0);
  h.not_steerable = "the schedule holds the driver's callback thread back";
  const RowComparison c = CompareBackends(SimViolated(), h);
  EXPECT_EQ(c.status, RowStatus::kNotSteerable);
  EXPECT_THAT(c.text, HasSubstr("not reached (sim: VIOLATED, token sc1.TOKEN)"));
  EXPECT_THAT(c.text, HasSubstr("not steerable: the schedule holds"));
  EXPECT_FALSE(Disagrees(c.status));
}

TEST(CompareBackends, SteerableCounterexampleThatDoesNotReproduceDisagrees) {
  const RowComparison c = CompareBackends(SimViolated(), Steered(HwRuns(18, 0), 3, 0));
  EXPECT_EQ(c.status, RowStatus::kNotReproduced);
  EXPECT_THAT(c.text, HasSubstr("MISMATCH"));
  EXPECT_THAT(c.text, HasSubstr("steered 0 of 3"));
  EXPECT_THAT(c.text, HasSubstr("sc1.TOKEN"));
  EXPECT_TRUE(Disagrees(c.status));
}

TEST(CompareBackends, ApproximateSteeringThatMissesIsNoMismatch) {
  HwSide h = Steered(HwRuns(18, 0), 3, 0);
  h.approximate = "the schedule runs T2 while T1, woken from its wait, is kept waiting";
  const RowComparison c = CompareBackends(SimViolated(), h);
  EXPECT_EQ(c.status, RowStatus::kNotSteerable);
  EXPECT_THAT(c.text, HasSubstr("not reached (sim: VIOLATED, token sc1.TOKEN)"));
  EXPECT_THAT(c.text, HasSubstr("steered 0 of 3"));
  EXPECT_THAT(c.text, HasSubstr("cannot force"));
  EXPECT_FALSE(Disagrees(c.status));
  // A violation the approximate steering does reach confirms the row.
  h.reproduced = 2;
  EXPECT_EQ(CompareBackends(SimViolated(), h).status, RowStatus::kConfirmed);
}

TEST(CompareBackends, HardwareOnlyViolationDisagreesAndSaysHowMuchWasSearched) {
  RowComparison c = CompareBackends(SimHolds(true), HwRuns(18, 1));
  EXPECT_EQ(c.status, RowStatus::kHardwareOnly);
  EXPECT_THAT(c.text, HasSubstr("1 of 18 runs"));
  EXPECT_THAT(c.text, HasSubstr("exhaustive DPOR, 12 executions"));
  EXPECT_TRUE(Disagrees(c.status));

  c = CompareBackends(SimHolds(false), HwRuns(18, 1));
  EXPECT_EQ(c.status, RowStatus::kHardwareOnly);
  EXPECT_THAT(c.text, HasSubstr("2000 DPOR + 100 random executions, not exhaustive"));
}

TEST(CompareBackends, UnobservableOnTheGpu) {
  HwSide h;
  h.observable = false;
  EXPECT_EQ(CompareBackends(SimHolds(), h).status, RowStatus::kNotObservable);
  const RowComparison c = CompareBackends(SimViolated(), h);
  EXPECT_EQ(c.status, RowStatus::kNotSteerable);
  EXPECT_THAT(c.text, HasSubstr("the GPU cannot observe it"));
  EXPECT_FALSE(Disagrees(c.status));
}

TEST(CompareBackends, PropertyWithoutASimulatorChecker) {
  SimSide s;
  s.checked = false;
  const RowComparison c = CompareBackends(s, HwRuns(3, 1));
  EXPECT_EQ(c.status, RowStatus::kHardwareUnchecked);
  EXPECT_FALSE(Disagrees(c.status));
  EXPECT_EQ(CompareBackends(s, HwRuns(3, 0)).status, RowStatus::kHoldsOnBoth);
}

TEST(CompareBackends, EitherBackendUnavailableDisagrees) {
  SimSide s = SimHolds();
  s.error = "the engine diverged";
  EXPECT_EQ(CompareBackends(s, HwRuns(3, 0)).status, RowStatus::kUnavailable);
  HwSide h;
  h.unavailable = "cuInit: no device";
  EXPECT_EQ(CompareBackends(SimHolds(), h).status, RowStatus::kUnavailable);
  HwSide failed_steer = HwRuns(3, 0);
  failed_steer.steered = true;
  failed_steer.steer_error = "fork: out of memory";
  const RowComparison c = CompareBackends(SimViolated(), failed_steer);
  EXPECT_EQ(c.status, RowStatus::kUnavailable);
  EXPECT_TRUE(Disagrees(c.status));
}

TEST(RowStatusName, EveryStatusHasAName) {
  for (RowStatus s :
       {RowStatus::kHoldsOnBoth, RowStatus::kConfirmed, RowStatus::kNotReached,
        RowStatus::kNotSteerable, RowStatus::kNotObservable, RowStatus::kHardwareUnchecked,
        RowStatus::kHardwareOnly, RowStatus::kNotReproduced, RowStatus::kUnavailable}) {
    EXPECT_NE(RowStatusName(s), "?");
  }
}

}  // namespace
}  // namespace stackcheck::hardware
