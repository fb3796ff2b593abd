// The generator yields well-formed scenarios of the promised sizes, the same
// case for the same seed, and shrinks towards smaller cases.
#include "properties/generators.h"

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"
#include "rapidcheck/gtest.h"

namespace stackcheck::properties {
namespace {

RC_GTEST_PROP(Generators, ScenariosAreWellFormed, ()) {
  const Case c = *GenCase();
  const Scenario& s = c.scenario;
  RC_ASSERT(!s.threads.empty());
  RC_ASSERT(s.threads.size() <= 4u);
  absl::flat_hash_set<RegionId> ids;
  for (const ThreadProgram& t : s.threads) {
    RC_ASSERT(!t.ops.empty());
    RC_ASSERT(t.ops.size() <= 5u);
    for (const HostOp& op : t.ops) {
      if (op.kind != HostOp::Kind::kRun) continue;
      RC_ASSERT(op.region.id != kNoRegion);
      RC_ASSERT(ids.insert(op.region.id).second);
      RC_ASSERT(op.region.teams >= 1u && op.region.teams <= 4u);
      RC_ASSERT(op.region.warps >= 1u && op.region.warps <= 4u);
      // Every block fits the device on its own.
      RC_ASSERT(op.region.StacksBytes() <= s.device_capacity);
    }
  }
  RC_ASSERT(s.soft_limit < s.device_capacity);
  RC_ASSERT(c.schedule.size() <= 48u);
}

TEST(Generators, SameSeedSameCase) {
  const rc::Gen<Case> gen = GenCase();
  for (std::uint64_t seed = 1; seed < 50; ++seed) {
    EXPECT_TRUE(CaseForSeed(gen, seed) == CaseForSeed(gen, seed)) << seed;
  }
  int distinct = 0;
  for (std::uint64_t seed = 1; seed < 50; ++seed) {
    distinct += !(CaseForSeed(gen, seed) == CaseForSeed(gen, seed + 1000));
  }
  EXPECT_GT(distinct, 40);
}

TEST(Generators, ASeedDrawsTheSameScenarioWithOrWithoutASchedule) {
  GenOptions no_schedule;
  no_schedule.draw_schedule = false;
  const rc::Gen<Case> with = GenCase();
  const rc::Gen<Case> without = GenCase(no_schedule);
  int scheduled = 0;
  for (std::uint64_t seed = 1; seed < 200; ++seed) {
    for (int size : {0, 37, 100}) {
      const Case a = CaseForSeed(with, seed, size);
      const Case b = CaseForSeed(without, seed, size);
      EXPECT_TRUE(SameScenario(a.scenario, b.scenario)) << seed << " " << size;
      EXPECT_TRUE(a.modes == b.modes) << seed << " " << size;
      EXPECT_TRUE(b.schedule.empty());
      scheduled += !a.schedule.empty();
    }
  }
  EXPECT_GT(scheduled, 100);  // the comparison is not between empty schedules
}

TEST(Generators, ExploresTheRarePaths) {
  // Over a few hundred seeds the generator must produce each feature the
  // properties depend on; a generator that never aborts finds no B1.
  const rc::Gen<Case> gen = GenCase();
  int multi_thread = 0, aborts = 0, dtors = 0, alloc_fail = 0, user_allocs = 0, grows = 0,
      preempts = 0, relaxed_modes = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    const Case c = CaseForSeed(gen, seed);
    multi_thread += c.scenario.threads.size() > 1;
    dtors += c.scenario.faults.device_destructors;
    alloc_fail += c.scenario.faults.alloc_failure_at_call != 0;
    relaxed_modes += !c.modes.free_waits_for_streams || !c.modes.serial_callback_thread;
    preempts += SizeOf(c).preemptions > 0;
    bool any_abort = false, any_alloc = false, any_grow = false;
    for (const ThreadProgram& t : c.scenario.threads) {
      std::uint64_t biggest = 0;
      for (const HostOp& op : t.ops) {
        any_alloc |= op.kind == HostOp::Kind::kDeviceAlloc;
        if (op.kind != HostOp::Kind::kRun) continue;
        any_abort |= op.region.aborts;
        any_grow |= biggest != 0 && op.region.StacksBytes() > biggest;
        biggest = std::max(biggest, op.region.StacksBytes());
      }
    }
    aborts += any_abort;
    user_allocs += any_alloc;
    grows += any_grow;
  }
  EXPECT_GT(multi_thread, 100);
  EXPECT_GT(aborts, 40);
  EXPECT_GT(dtors, 40);
  EXPECT_GT(alloc_fail, 40);
  EXPECT_GT(user_allocs, 100);
  EXPECT_GT(grows, 100);
  EXPECT_GT(preempts, 100);
  EXPECT_GT(relaxed_modes, 40);
}

TEST(Generators, ShrinksTowardsSmallerCases) {
  // Find a generated case with several threads; its shrinks must include one
  // with fewer threads and one with fewer preemptions.
  const rc::Gen<Case> gen = GenCase();
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    rc::Shrinkable<Case> s = gen(rc::Random(seed), 50);
    const CaseSize size = SizeOf(s.value());
    if (size.threads < 3 || size.preemptions < 2) continue;
    bool fewer_threads = false, fewer_preemptions = false;
    rc::Seq<rc::Shrinkable<Case>> shrinks = s.shrinks();
    while (rc::Maybe<rc::Shrinkable<Case>> next = shrinks.next()) {
      const CaseSize smaller = SizeOf(next->value());
      fewer_threads |= smaller.threads < size.threads;
      fewer_preemptions |= smaller.preemptions < size.preemptions;
    }
    EXPECT_TRUE(fewer_threads);
    EXPECT_TRUE(fewer_preemptions);
    return;
  }
  FAIL() << "no seed below 100 gave 3 threads and 2 preemptions";
}

}  // namespace
}  // namespace stackcheck::properties
