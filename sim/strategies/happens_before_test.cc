// Dependent() and the races HappensBefore reports for the footprint kinds
// that are not plain objects: device-wide and program-wide steps, and
// footprints that use all three accesses; the edge a join takes from the
// joined thread, and the races skipped as irreversible (Footprint::blocking);
// that a blocked lock attempt orders nothing after it;
// waits and the stream work they wait for, either way round, and a copy's
// race with a trap; a host-word load beside a trap; and that truncating a record leaves it as if
// only the kept steps had been recorded.
#include "sim/strategies/happens_before.h"

#include <algorithm>
#include <random>
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

std::vector<std::size_t> Races(const HappensBefore& hb, ActorId actor, const Footprint& step) {
  std::vector<std::size_t> races;
  hb.ForEachRace(actor, step, [&](std::size_t i) {
    races.push_back(i);
    return true;
  });
  return races;
}

TEST(Dependent, AProgramWideStepConflictsWithEveryProgramStepOnly) {
  const Footprint handler = Step({{kHostObject + 1, true}}, kRunsProgram | kProgramWide);
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
  hb.Record(0, Step({{kDeviceObject, true}}, 0));  // 0: GPU
  hb.Record(1, Step({{kHostObject + 1, true}},
                    kRunsProgram | kProgramWide));  // 1: handler
  EXPECT_EQ(Races(hb, 2, Step({{kHostObject, false}}, kRunsProgram)), std::vector<std::size_t>{1});
  // A GPU step does not race with the handler.
  EXPECT_TRUE(Races(hb, 2, Step({{kDeviceObject + 1, true}}, 0)).empty());
}

TEST(HappensBefore, AProgramWideStepRacesWithEveryEarlierProgramStep) {
  HappensBefore hb;
  hb.Record(0, Step({{kHostObject, true}}, kRunsProgram));      // 0
  hb.Record(1, Step({{kDeviceObject, true}}, 0));               // 1: GPU
  hb.Record(2, Step({{kHostObject + 2, true}}, kRunsProgram));  // 2
  const Footprint handler = Step({{kHostObject + 1, true}}, kRunsProgram | kProgramWide);
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
      Step({{kDeviceObject, true}, {kDeviceObject + 1, true}, {kDeviceObject + 3, true}}, 0);
  EXPECT_EQ(Races(hb, 2, callback_step), (std::vector<std::size_t>{1, 0}));
}

// Random steps over a few objects of every kind, and up to 20 actors (past
// the initial clock width, so that widening meets truncation too).
struct RandomSteps {
  std::mt19937_64 rng;
  std::pair<ActorId, Footprint> Next() {
    const auto pick = [&](std::uint64_t n) { return rng() % n; };
    const ActorId actor = static_cast<ActorId>(pick(pick(4) == 0 ? 20 : 4));
    Footprint f;
    const int count = 1 + static_cast<int>(pick(3));
    for (int a = 0; a < count; ++a) {
      std::uint32_t object;
      switch (pick(12)) {
        case 0:
          object = kGlobalObject;
          break;
        case 1:
          object = kDeviceWideObject;
          break;
        default:
          object = static_cast<std::uint32_t>(pick(2) == 0 ? kHostObject + pick(3)
                                                           : kDeviceObject + pick(3));
      }
      f.accesses[f.count++] = {object, pick(2) == 0};
    }
    f.program = static_cast<std::uint8_t>(pick(6) == 0 ? kRunsProgram | kProgramWide
                                                       : pick(2) * kRunsProgram);
    return {actor, f};
  }
};

// Every answer a search asks of the record, for a step of every actor.
std::vector<std::size_t> Answers(const HappensBefore& hb, RandomSteps& probes) {
  std::vector<std::size_t> out;
  for (int q = 0; q < 12; ++q) {
    const auto [actor, step] = probes.Next();
    for (std::size_t i : Races(hb, actor, step)) {
      out.push_back(i);
      for (ActorId a : hb.Initials(i, actor, step)) out.push_back(1000 + a);
    }
    out.push_back(999999);
  }
  hb.ForEachRaceOfLastAsGlobal([&](std::size_t i) { out.push_back(i); });
  return out;
}

TEST(HappensBefore, ATruncatedRecordIsTheRecordOfItsPrefix) {
  for (int round = 0; round < 300; ++round) {
    RandomSteps steps{std::mt19937_64(round)};
    std::vector<std::pair<ActorId, Footprint>> prefix, rest, discarded;
    const int n = 1 + round % 40;
    for (int k = 0; k < n; ++k) prefix.push_back(steps.Next());
    for (int k = 0; k < 1 + round % 17; ++k) discarded.push_back(steps.Next());
    for (int k = 0; k < round % 23; ++k) rest.push_back(steps.Next());

    HappensBefore fresh;
    HappensBefore reused;
    for (const auto& [a, f] : discarded) reused.Record(a, f);  // an older execution
    reused.Truncate(0);
    for (const auto& [a, f] : prefix) {
      fresh.Record(a, f);
      reused.Record(a, f);
    }
    for (const auto& [a, f] : discarded) reused.Record(a, f);
    reused.Truncate(prefix.size());
    for (const auto& [a, f] : rest) {
      fresh.Record(a, f);
      reused.Record(a, f);
    }
    ASSERT_EQ(fresh.size(), reused.size());
    RandomSteps probes_a{std::mt19937_64(1000 + round)};
    RandomSteps probes_b{std::mt19937_64(1000 + round)};
    ASSERT_EQ(Answers(fresh, probes_a), Answers(reused, probes_b)) << "round " << round;
  }
}

}  // namespace
}  // namespace stackcheck::sim

namespace stackcheck::sim {
namespace {

constexpr std::uint32_t kMutexM = 1u << 24 | 3;  // ObjectKind::kMutex

Footprint Lock() { return Blocking(Touches(kMutexM, true), kLockAttempt); }
Footprint OwnerUnlock() { return Blocking(Touches(kMutexM, true), kOwnerUnlock); }

TEST(HappensBefore, AJoinFollowsTheJoinedThreadsSteps) {
  HappensBefore hb;
  hb.Record(1, Step({{kHostObject, true}}, kRunsProgram));            // 0: the thread's last
  hb.Record(0, Touches(ObjectId(ObjectKind::kThreadEnd, 1), false));  // 1: join
  // What the joiner does next does not race with the joined thread.
  const Footprint exit = ProgramWide(Step({{kHostObject + 1, true}}, kRunsProgram));
  EXPECT_TRUE(Races(hb, 0, exit).empty());
  // Without the join it would.
  HappensBefore no_join;
  no_join.Record(1, Step({{kHostObject, true}}, kRunsProgram));
  EXPECT_EQ(Races(no_join, 0, exit), std::vector<std::size_t>{0});
}

TEST(HappensBefore, ALockAttemptDoesNotRaceWithTheHoldersUnlock) {
  HappensBefore hb;
  hb.Record(1, Lock());         // 0: actor 1 takes the mutex
  hb.Record(1, OwnerUnlock());  // 1: and releases it
  // Before the unlock, actor 2's attempt would only block: the race to
  // reverse is the one with the lock.
  EXPECT_EQ(Races(hb, 2, Lock()), std::vector<std::size_t>{0});
}

TEST(HappensBefore, AnUnlockAfterAnotherReleaseIsReversible) {
  HappensBefore hb;
  hb.Record(1, Lock());                  // 0: actor 1 holds it
  hb.Record(3, Touches(kMutexM, true));  // 1: actor 3 unlocks it (not its owner)
  hb.Record(1, OwnerUnlock());           // 2: declared while held, runs after
  // The mutex may have been free before step 2: a lock there would not block.
  const std::vector<std::size_t> races = Races(hb, 2, Lock());
  EXPECT_NE(std::find(races.begin(), races.end(), 2u), races.end());
}

TEST(HappensBefore, ABlockedAttemptDoesNotRaceWithTheHoldersUnlock) {
  HappensBefore hb;
  hb.Record(1, Lock());  // 0: actor 1 holds it
  hb.Record(2, Lock());  // 1: actor 2's attempt blocks
  // Actor 1's unlock before the attempt would let it lock at once, as its
  // resume does.
  EXPECT_TRUE(Races(hb, 1, OwnerUnlock()).empty());
}

TEST(HappensBefore, TheHolderDoesNotFollowABlockedAttempt) {
  Footprint blocked = Lock();
  blocked.blocking |= kBlockedAttempt;
  HappensBefore hb;
  hb.Record(1, Lock());                                         // 0: actor 1 holds it
  hb.Record(2, Step({{kHostObject + 1, true}}, kRunsProgram));  // 1: actor 2's exit, say
  hb.Record(2, blocked);                                        // 2: its attempt blocks
  hb.Record(1, OwnerUnlock());                                  // 3: actor 1 unlocks
  // What actor 1 does after its unlock still races with actor 2's step
  // before the attempt: the attempt changed nothing actor 1 saw.
  const Footprint after = Step({{kHostObject + 1, true}}, kRunsProgram);
  EXPECT_EQ(Races(hb, 1, after), std::vector<std::size_t>{1});
  // An attempt that acquired is a real edge: the unlock follows it.
  HappensBefore acquired;
  acquired.Record(2, Step({{kHostObject + 1, true}}, kRunsProgram));  // 0
  acquired.Record(2, Lock());                                         // 1: takes it
  acquired.Record(2, OwnerUnlock());                                  // 2
  acquired.Record(1, Lock());                                         // 3: actor 1 takes it
  EXPECT_TRUE(Races(acquired, 1, after).empty());
}

TEST(HappensBefore, AWaitDoesNotRaceWithEarlierStreamWork) {
  const std::uint32_t progress = ObjectId(ObjectKind::kStreamProgress, 0);
  const std::uint32_t enqueued = ObjectId(ObjectKind::kStream, 0);
  const Footprint wait = Blocking(Touches(enqueued, false, progress, false), kWaitsForIdle);
  const Footprint end = Blocking(Touches(progress, true), kStreamWork);
  HappensBefore hb;
  hb.Record(2, end);  // 0: a kernel's end
  EXPECT_TRUE(Races(hb, 1, wait).empty());
  hb.Record(1, wait);                     // 1
  hb.Record(3, Touches(enqueued, true));  // 2: another thread launches
  // Work after a wait still races with it: the wait may have returned at
  // once on a sticky error.
  EXPECT_EQ(Races(hb, 2, end), std::vector<std::size_t>{1});
  // A query is no wait: it sees whether the end came first.
  EXPECT_EQ(Races(hb, 4, Touches(enqueued, false, progress, false)),
            (std::vector<std::size_t>{2, 0}));
}

TEST(HappensBefore, AWaitOnAHealthyContextDoesNotRaceWithTheWorkItWaitedFor) {
  const std::uint32_t progress = ObjectId(ObjectKind::kStreamProgress, 0);
  const std::uint32_t enqueued = ObjectId(ObjectKind::kStream, 0);
  const Footprint healthy_wait =
      Blocking(Touches(enqueued, false, progress, false), kWaitsForIdle | kWaitsOnHealthyContext);
  const Footprint end = Blocking(Touches(progress, true), kStreamWork);
  HappensBefore hb;
  hb.Record(1, healthy_wait);  // 0: finds the stream busy and waits
  EXPECT_TRUE(Races(hb, 2, end).empty());
  // A trap still races with it: run first, it makes the wait fail at once.
  Footprint trap = DeviceWideFootprint();
  trap.blocking |= kStreamWork;
  EXPECT_EQ(Races(hb, 2, trap), std::vector<std::size_t>{0});
}

TEST(HappensBefore, AReadOnlyWaitDoesNotRaceWithALaunchThatCannotTrap) {
  const std::uint32_t progress = ObjectId(ObjectKind::kStreamProgress, 0);
  const std::uint32_t enqueued = ObjectId(ObjectKind::kStream, 0);
  const std::uint32_t memory = ObjectId(ObjectKind::kMemory, 0);
  const std::uint32_t launch = ObjectId(ObjectKind::kLaunch, 1);
  const Footprint copy = Blocking(Touches(enqueued, false, progress, false, memory, false),
                                  kWaitsForIdle | kWokenByTrapDiffers | kWaitsOnHealthyContext);
  const Footprint harmless =
      Blocking(Touches(enqueued, true, memory, false, launch, true), kEnqueuesHarmlessWork);
  HappensBefore hb;
  hb.Record(1, copy);  // 0
  EXPECT_TRUE(Races(hb, 2, harmless).empty());
  // A launch of a trapping kernel: run first, its trap would end the copy.
  EXPECT_EQ(Races(hb, 2, Touches(enqueued, true, memory, false, launch, true)),
            std::vector<std::size_t>{0});
  // A waiting free writes the ledger the launch reads: the race stays.
  HappensBefore freed;
  freed.Record(1, Blocking(Touches(memory, true, enqueued, false, progress, false),
                           kWaitsForIdle | kWaitsOnHealthyContext));
  EXPECT_EQ(Races(freed, 2, harmless), std::vector<std::size_t>{0});
}

TEST(HappensBefore, ACopyRacesWithTheTrapThatWakesIt) {
  const std::uint32_t progress = ObjectId(ObjectKind::kStreamProgress, 0);
  const std::uint32_t enqueued = ObjectId(ObjectKind::kStream, 0);
  Footprint trap = DeviceWideFootprint();
  trap.blocking |= kStreamWork;
  const Footprint sync = Blocking(Touches(enqueued, false, progress, false), kWaitsForIdle);
  const Footprint copy =
      Blocking(Touches(enqueued, false, progress, false), kWaitsForIdle | kWokenByTrapDiffers);
  HappensBefore hb;
  hb.Record(2, trap);  // 0: the trap poisons the context
  // A synchronisation fails alike whether the trap woke it or came first...
  EXPECT_TRUE(Races(hb, 1, sync).empty());
  // ...a copy does not (999 against 719).
  EXPECT_EQ(Races(hb, 1, copy), std::vector<std::size_t>{0});
}

// A host-word load is beside a trap (Footprint::beside): neither order of
// the two changes what the load returns or what the trap does. It still
// races with the kernel end that may write its word, and a step after the
// load that the trap concerns still follows the trap.
TEST(HappensBefore, AHostWordLoadIsBesideATrap) {
  const std::uint32_t progress = ObjectId(ObjectKind::kStreamProgress, 0);
  const std::uint32_t word = ObjectId(ObjectKind::kHostWord, 1);
  const Footprint trap = DeviceWideFootprint();
  const Footprint load = BesideDeviceWide(Touches(progress, false, word, false));
  const Footprint plain_load = Touches(progress, false, word, false);
  EXPECT_FALSE(Dependent(trap, load));
  EXPECT_FALSE(Dependent(load, trap));
  EXPECT_TRUE(Dependent(trap, plain_load));
  const Footprint kernel_end = Touches(progress, true);
  EXPECT_TRUE(Dependent(kernel_end, load));

  HappensBefore hb;
  hb.Record(2, trap);  // 0
  EXPECT_TRUE(Races(hb, 1, load).empty());
  hb.Record(1, load);  // 1: does not follow the trap
  // A kernel end that may write the word races with the load (and with
  // the trap, as every device step does).
  EXPECT_EQ(Races(hb, 3, kernel_end), (std::vector<std::size_t>{1, 0}));
  // The loading thread's next driver call reads the context the trap wrote.
  EXPECT_EQ(Races(hb, 1, Touches(ObjectId(ObjectKind::kMemory, 0), true)),
            std::vector<std::size_t>{0});
  // And a trap after the load does not follow it.
  HappensBefore other;
  other.Record(1, load);  // 0
  EXPECT_TRUE(Races(other, 2, trap).empty());
}

TEST(HappensBefore, AStartDoesNotRaceWithTheLaunchThatEnabledIt) {
  const std::uint32_t launch = ObjectId(ObjectKind::kLaunch, 5);
  HappensBefore hb;
  hb.Record(1, Touches(ObjectId(ObjectKind::kStream, 0), true, launch, true));  // 0
  EXPECT_TRUE(Races(hb, 2, Touches(kDeviceObject, false, launch, false)).empty());
}

}  // namespace
}  // namespace stackcheck::sim
