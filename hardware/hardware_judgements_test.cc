// The hardware judgements and the property catalogue agree: every catalogue
// property has exactly one row, which judges exactly where the catalogue says
// the GPU observes it, so that `validate` never steers a counterexample onto
// the GPU for a property the runner cannot see (counted "not reproduced", a
// false MISMATCH), and a property the GPU cannot see says why.
#include "hardware/hardware_judgements.h"

#include <memory>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hardware/run_record.h"
#include "hardware/steered_replay.h"
#include "properties/catalogue.h"

namespace stackcheck::hardware {
namespace {

TEST(HardwareJudgementsTest, EveryCataloguePropertyHasOneRowJudgingWhereTheGpuObserves) {
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    int rows = 0;
    for (const HardwareJudgement& row : HardwareJudgements()) {
      if (row.property != p.name) continue;
      ++rows;
      EXPECT_EQ(row.judge != nullptr, p.ObservableOn(properties::kCudaBackend)) << p.name;
      EXPECT_EQ(row.judge == nullptr, !row.not_observable.empty()) << p.name;
    }
    EXPECT_EQ(rows, 1) << p.name;
    EXPECT_EQ(HardwareObserves(p.name), p.ObservableOn(properties::kCudaBackend)) << p.name;
  }
  for (const HardwareJudgement& row : HardwareJudgements()) {
    EXPECT_NE(properties::FindProperty(row.property), nullptr) << row.property;
  }
}

TEST(HardwareJudgementsTest, ACleanRunHoldsWhatTheGpuObservesAndSaysWhyNotTheRest) {
  auto rec = std::make_unique<RunRecord>();
  rec->device_snapshot = true;
  rec->context_destroyed = true;
  HardwareRunResult run;
  run.ending = HardwareRunResult::Ending::kExited;
  const Scenario scenario;
  for (const HardwareJudgement& row : HardwareJudgements()) {
    const PropertyResult r = JudgeOnHardware(row.property, *rec, scenario, run);
    EXPECT_EQ(r.property, row.property);
    if (row.judge != nullptr) {
      EXPECT_EQ(r.verdict, HwVerdict::kHolds) << row.property << ": " << r.evidence;
    } else {
      EXPECT_EQ(r.verdict, HwVerdict::kNotObserved) << row.property;
      EXPECT_TRUE(absl::StrContains(r.evidence, row.not_observable)) << r.evidence;
    }
  }
  EXPECT_EQ(JudgeOnHardware("no-such-property", *rec, scenario, run).verdict,
            HwVerdict::kNotObserved);
}

TEST(HardwareJudgementsTest, AHungRunViolatesNoDeadlockAndProgress) {
  auto rec = std::make_unique<RunRecord>();
  HardwareRunResult run;
  run.ending = HardwareRunResult::Ending::kWatchdog;
  run.hang_report = {"T1 waits in cuCtxSynchronize"};
  const Scenario scenario;
  for (const char* property : {"no-deadlock", "progress"}) {
    const PropertyResult r = JudgeOnHardware(property, *rec, scenario, run);
    EXPECT_EQ(r.verdict, HwVerdict::kViolated) << property;
    EXPECT_EQ(r.evidence, "watchdog: T1 waits in cuCtxSynchronize");
  }
  EXPECT_EQ(JudgeOnHardware("no-leak", *rec, scenario, run).verdict, HwVerdict::kNotObserved);
}

}  // namespace
}  // namespace stackcheck::hardware
