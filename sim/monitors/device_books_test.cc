#include "sim/device_books.h"

#include "gtest/gtest.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using monitor_testing::FakeSimView;
using monitor_testing::kGpu;
using monitor_testing::kT0;
using monitor_testing::kT1;
using monitor_testing::Trace;

// Applies events [0, n) as a feeder does, both halves each.
void ApplyAll(DeviceBooks& books, const std::vector<Event>& events, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    books.ApplyBefore(events[i], i);
    books.ApplyAfter(events[i], i);
  }
}

TEST(DeviceBooksTest, AKernelIsBookedOnTheBlocksItWasEnqueuedOn) {
  Trace t;
  t.Alloc(kT0, 0x1000, 0x1000)                                              // serial 1: stacks
      .Alloc(kT0, 0x4000, 0x100)                                            // serial 2: variables
      .Enqueue(kT0, 7, 0, 1, 0x1000, 4, 0x100)                              //
      .Add(kT0, EventKind::kKernelVars, payload::KernelVars{7, 0x4010, 0})  // no program data
      .Start(7);
  DeviceBooks books;
  books.Reset();
  ApplyAll(books, t.events(), t.events().size());
  const KernelInFlight* k = books.FindKernel(7);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->block, 1u);
  EXPECT_EQ(k->vars_block, 2u);
  EXPECT_EQ(k->data_block, kNoBlock);
  EXPECT_TRUE(k->started);
  EXPECT_EQ(k->start_index, 4u);
  EXPECT_EQ(k->enqueued_by, kT0);

  t.End(7);
  ApplyAll(books, {t.events().back()}, 1);
  EXPECT_TRUE(books.in_flight().empty());
}

TEST(DeviceBooksTest, AFreeNamesTheBlockItRemovedUntilTheNextEvent) {
  Trace t;
  t.Alloc(kT0, 0x1000, 0x1000).Free(kT1, 0x1000, 0x1000).Free(kT1, 0x1000, 0x1000);
  const std::vector<Event>& e = t.events();
  DeviceBooks books;
  books.Reset();
  ApplyAll(books, e, 1);
  EXPECT_EQ(books.just_freed(), nullptr);
  books.ApplyBefore(e[1], 1);
  ASSERT_NE(books.just_freed(), nullptr);
  EXPECT_EQ(books.just_freed()->serial, 1u);
  EXPECT_EQ(books.just_freed()->freed_by, kT1);
  books.ApplyAfter(e[1], 1);
  books.ApplyBefore(e[2], 2);  // the driver refuses a second free (SEM-11)
  EXPECT_EQ(books.just_freed(), nullptr);
  EXPECT_TRUE(books.ledger().live().empty());
}

// Monitors judge what a teardown destroys, so they must still see it.
TEST(DeviceBooksTest, ATeardownIsAppliedOnlyAfterTheMonitors) {
  Trace t;
  t.Alloc(kT0, 0x1000, 0x1000)
      .Enqueue(kT0, 3, 0, 1, 0x1000, 1, 0x100)
      .Add(kT0, EventKind::kCtxDestroy);
  const std::vector<Event>& e = t.events();
  DeviceBooks books;
  books.Reset();
  ApplyAll(books, e, 2);
  books.ApplyBefore(e[2], 2);
  EXPECT_EQ(books.ledger().live().size(), 1u);
  EXPECT_FALSE(books.ledger().torn_down());
  books.ApplyAfter(e[2], 2);
  EXPECT_TRUE(books.ledger().live().empty());
  EXPECT_TRUE(books.ledger().torn_down());
  ASSERT_NE(books.ledger().FindFreed(1), nullptr);
  EXPECT_TRUE(books.ledger().FindFreed(1)->by_teardown);
}

TEST(DeviceBooksTest, AnEndedKernelIsShownAsItWasUntilTheNextEvent) {
  Trace t;
  t.Alloc(kT0, 0x1000, 0x1000)
      .Enqueue(kT0, 7, 0, 5, 0x1000, 1, 0x100)
      .Start(7)
      .End(7, 0, CuResult::kLaunchFailed)
      .End(7, 0, CuResult::kLaunchFailed);  // unknown by now
  const std::vector<Event>& e = t.events();
  DeviceBooks books;
  books.Reset();
  ApplyAll(books, e, 3);
  EXPECT_EQ(books.just_ended(), nullptr);
  books.ApplyBefore(e[3], 3);
  ASSERT_NE(books.just_ended(), nullptr);
  EXPECT_EQ(books.just_ended()->id, 7u);
  EXPECT_EQ(books.just_ended()->region, 5u);
  EXPECT_TRUE(books.just_ended()->started);
  EXPECT_TRUE(books.in_flight().empty());
  books.ApplyAfter(e[3], 3);
  books.ApplyBefore(e[4], 4);
  EXPECT_EQ(books.just_ended(), nullptr);
}

// The runtime's blocks: allocated inside a region, or holding a kernel's
// stacks; a block allocated outside any region (device_alloc) is not.
TEST(DeviceBooksTest, BlocksAllocatedInARegionOrHoldingStacksAreTheRuntimes) {
  Trace t;
  t.Alloc(kT0, 0x1000, 0x1000)  // serial 1: the program's, outside a region
      .RegionBegin(kT1, 3)
      .Alloc(kT1, 0x4000, 0x1000)  // serial 2: inside T1's region
      .Alloc(kT0, 0x8000, 0x1000)  // serial 3: T0 is in no region
      .RegionEnd(kT1, 3)
      .Alloc(kT1, 0xc000, 0x1000)                // serial 4: after the region
      .Enqueue(kT0, 1, 0, 4, 0x8000, 1, 0x100);  // stacks in serial 3
  DeviceBooks books;
  books.Reset();
  ApplyAll(books, t.events(), 4);
  EXPECT_FALSE(books.IsRuntimeBlock(1));
  EXPECT_TRUE(books.IsRuntimeBlock(2));
  EXPECT_FALSE(books.IsRuntimeBlock(3));
  books.Reset();
  ApplyAll(books, t.events(), t.events().size());
  EXPECT_FALSE(books.IsRuntimeBlock(1));
  EXPECT_TRUE(books.IsRuntimeBlock(2));
  EXPECT_TRUE(books.IsRuntimeBlock(3));
  EXPECT_FALSE(books.IsRuntimeBlock(4));
  books.Reset();
  EXPECT_FALSE(books.IsRuntimeBlock(2));
}

TEST(DeviceBooksTest, ResetForgetsTheExecution) {
  Trace t;
  t.Alloc(kT0, 0x1000, 0x1000).Enqueue(kT0, 3, 0, 1, 0x1000, 1, 0x100);
  DeviceBooks books;
  books.Reset();
  ApplyAll(books, t.events(), t.events().size());
  books.Reset();
  EXPECT_TRUE(books.ledger().live().empty());
  EXPECT_TRUE(books.in_flight().empty());
  EXPECT_EQ(books.ledger().allocs(), 0u);
}

// A view that keeps no books must not hand a monitor empty ones (it would
// see no memory and no kernels, and judge nothing).
TEST(DeviceBooksDeathTest, AViewWithoutBooksStopsTheProgram) {
  const FakeSimView view;
  EXPECT_DEATH(view.device_books(), "does not keep");
}

TEST(BookkeepingViewTest, AnswersNamesFromTheViewItWraps) {
  FakeSimView names;
  names.sticky = true;
  BookkeepingView view(names);
  EXPECT_EQ(view.ActorName(kGpu), "GPU");
  EXPECT_EQ(view.MutexName(7), "stacks lock");
  EXPECT_TRUE(view.sticky_error());
  EXPECT_TRUE(view.device_books().in_flight().empty());
}

}  // namespace
}  // namespace stackcheck::sim
