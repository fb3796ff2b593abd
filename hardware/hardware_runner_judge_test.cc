// The runner's judge and the property catalogue agree: every property the
// catalogue says the GPU observes has a rule in JudgeOnHardware, so that
// `validate` never steers a counterexample onto the GPU for a property the
// runner cannot see (counted "not reproduced", a false MISMATCH).
#include <memory>

#include "gtest/gtest.h"
#include "hardware/hardware_runner.h"
#include "hardware/run_record.h"
#include "hardware/steered_replay.h"
#include "properties/catalogue.h"

namespace stackcheck::hardware {
namespace {

TEST(HardwareRunnerJudgeTest, EveryPropertyTheCatalogueSaysTheGpuObservesHasARule) {
  auto rec = std::make_unique<RunRecord>();
  HardwareRunResult run;
  run.ending = HardwareRunResult::Ending::kExited;
  const Scenario scenario;
  int observed = 0;
  for (const properties::PropertyInfo& p : properties::AllProperties()) {
    EXPECT_EQ(HardwareObserves(p.name), p.ObservableOn(properties::kCudaBackend)) << p.name;
    if (!p.ObservableOn(properties::kCudaBackend)) continue;
    ++observed;
    const PropertyResult r = JudgeOnHardware(p.name, *rec, scenario, run);
    EXPECT_NE(r.evidence, kNoHardwareRule) << p.name;
  }
  EXPECT_GE(observed, 9);
}

TEST(HardwareRunnerJudgeTest, WhatOnlyTheSimulatorSeesIsNotSteered) {
  // no-avoidable-oom: the GPU run records no allocation that gave up beside
  // a cache that could have made room; data-race: no happens-before on the
  // GPU; no-use-after-free: cuMemFree waits for the device (SEM-11).
  for (const char* name : {"no-avoidable-oom", "data-race", "no-use-after-free"}) {
    EXPECT_FALSE(HardwareObserves(name)) << name;
  }
}

}  // namespace
}  // namespace stackcheck::hardware
