// Dependent() and the races HappensBefore reports for the footprint kinds
// that are not plain objects: device-wide and program-wide steps, and
// footprints that use all three accesses.
#include "sim/strategies/happens_before.h"

#include <vector>

#include "gtest/gtest.h"
#include "sim/strategy.h"

namespace stackcheck::sim {
namespace {

constexpr std::uint32_t kHostObject = 7;                 // a mutex, say
constexpr std::uint32_t kDeviceObject = kDeviceBit | 9;  // a stream's progress

Footprint Step(std::vector<Access> accesses, std::uint8_t program) {
  Footprint f;
  for (const Access& a : accesses) f.accesses[f.count++] = a;
  f.program = program;
  return f;
}

std::vector<std::size_t> Races(const HappensBefore& hb, ActorId actor,
                               const Footprint& step) {
  std::vector<std::size_t> races;
  hb.ForEachRace(actor, step, [&](std::size_t i) {
    races.push_back(i);
    return true;
  });
  return races;
}

TEST(Dependent, AProgramWideStepConflictsWithEveryProgramStepOnly) {
  const Footprint handler =
      Step({{kHostObject + 1, true}}, kRunsProgram | kProgramWide);
  const Footprint host = Step({{kHostObject, false}}, kRunsProgram);
  const Footprint gpu = Step({{kDeviceObject, true}}, 0);
  EXPECT_TRUE(Dependent(handler, host));
  EXPECT_TRUE(Dependent(host, handler));
  EXPECT_FALSE(Dependent(handler, gpu));
  EXPECT_FALSE(Dependent(gpu, handler));
  // Two program steps on disjoint objects stay independent.
  EXPECT_FALSE(Dependent(host, Step({{kHostObject + 2, true}}, kRunsProgram)));
}

TEST(HappensBefore, AProgramStepRacesWithAnEarlierProgramWideStep) {
  HappensBefore hb;
  hb.Record(0, Step({{kDeviceObject, true}}, 0));                      // 0: GPU
  hb.Record(1, Step({{kHostObject + 1, true}},
                    kRunsProgram | kProgramWide));                     // 1: handler
  EXPECT_EQ(Races(hb, 2, Step({{kHostObject, false}}, kRunsProgram)),
            std::vector<std::size_t>{1});
  // A GPU step does not race with the handler.
  EXPECT_TRUE(Races(hb, 2, Step({{kDeviceObject + 1, true}}, 0)).empty());
}

TEST(HappensBefore, AProgramWideStepRacesWithEveryEarlierProgramStep) {
  HappensBefore hb;
  hb.Record(0, Step({{kHostObject, true}}, kRunsProgram));      // 0
  hb.Record(1, Step({{kDeviceObject, true}}, 0));               // 1: GPU
  hb.Record(2, Step({{kHostObject + 2, true}}, kRunsProgram));  // 2
  const Footprint handler =
      Step({{kHostObject + 1, true}}, kRunsProgram | kProgramWide);
  EXPECT_EQ(Races(hb, 3, handler), (std::vector<std::size_t>{2, 0}));
  hb.Record(3, handler);  // 3
  // Once actor 2 has taken a step after the handler's, it follows it.
  const Footprint next = Step({{kHostObject + 5, true}}, kRunsProgram);
  EXPECT_EQ(Races(hb, 2, next), std::vector<std::size_t>{3});
  hb.Record(2, next);
  EXPECT_TRUE(Races(hb, 2, next).empty());
}

TEST(HappensBefore, TheThirdObjectOfADeviceStepIsSearchedForRaces) {
  // A callback's GPU step touches both halves of its stream and its own
  // object; a race on the third must be found alongside the device-wide
  // steps (they once shared a slot of the merge).
  HappensBefore hb;
  hb.Record(0, Step({{kDeviceObject + 3, true}}, kRunsProgram));  // 0
  hb.Record(1, Step({{kDeviceWideObject, true}}, 0));             // 1
  const Footprint callback_step =
      Step({{kDeviceObject, true}, {kDeviceObject + 1, true},
            {kDeviceObject + 3, true}},
           0);
  EXPECT_EQ(Races(hb, 2, callback_step), (std::vector<std::size_t>{1, 0}));
}

}  // namespace
}  // namespace stackcheck::sim
