// core/shared.h on the simulator (SimHost::DeclareShared / SharedAccess): each
// access is an event naming actor, object and kind; an access with its guard
// held adds no scheduling point, one without it is a program-wide point of
// its own; digests leave the accesses out.
#include <memory>
#include <vector>

#include "core/shared.h"
#include "gtest/gtest.h"
#include "sim/event_payloads.h"
#include "sim/simulator.h"

namespace stackcheck::sim {
namespace {

// Runs whoever ran last, and records every point's footprints.
class Recording : public Strategy {
 public:
  bool NewExecution() override { return true; }
  std::size_t NextActor(const SchedulingPoint& point) override {
    for (const Candidate& c : point.runnable) seen.push_back(c.next);
    return point.current >= 0 ? static_cast<std::size_t>(point.current) : 0;
  }
  std::uint64_t NextNumber(std::uint64_t) override { return 0; }
  bool ObservesEveryStep() const override { return true; }

  // The footprints offered that name shared object `id`.
  std::vector<Footprint> Touching(std::uint32_t id) const {
    std::vector<Footprint> out;
    for (const Footprint& f : seen) {
      for (int i = 0; i < f.count; ++i) {
        if (f.accesses[i].object == ObjectId(ObjectKind::kShared, id)) out.push_back(f);
      }
    }
    return out;
  }
  std::vector<Footprint> seen;
};

std::vector<Event> Accesses(const ExecutionResult& r) {
  std::vector<Event> out;
  for (const Event& e : r.trace) {
    if (e.kind == EventKind::kSharedAccess) out.push_back(e);
  }
  return out;
}

TEST(SharedAccessTest, AccessesWithTheGuardHeldAreEventsButNoPoints) {
  Simulator sim;
  Recording strategy;
  int seen_value = 0;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    Shared<int> value(h, "counter", mu.get(), 1);
    MutexLock lock(mu.get());
    value.Write() += 1;
    seen_value = value.Read();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(seen_value, 2);
  const std::vector<Event> accesses = Accesses(r);
  ASSERT_EQ(accesses.size(), 2u);
  EXPECT_EQ(accesses[0].actor, 0u);
  const auto write = accesses[0].As<payload::SharedAccess>();
  EXPECT_EQ(write.object, 0u);  // the first object declared
  EXPECT_TRUE(write.write);
  EXPECT_EQ(write.guard, SharedGuard::kHeld);
  EXPECT_FALSE(accesses[1].As<payload::SharedAccess>().write);  // then a read
  EXPECT_TRUE(strategy.Touching(0).empty());
  EXPECT_EQ(sim.view().SharedName(0), "counter");
}

TEST(SharedAccessTest, AnAccessWithoutItsGuardIsAProgramWidePointOfItsOwn) {
  Simulator sim;
  Recording strategy;
  const ExecutionResult& r = sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> mu = h.NewMutex("m");
    Shared<int> guarded(h, "guarded", mu.get());
    Shared<int> free_for_all(h, "unguarded", nullptr);
    guarded.Write() = 3;  // guard not held
    (void)free_for_all.Read();
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  // Guarded state touched without its guard: the object, the guard mutex
  // (read) and the guard's bit broken.
  const std::vector<Footprint> writes = strategy.Touching(0);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(writes[0].accesses[0].write);
  ASSERT_EQ(writes[0].count, 2);
  EXPECT_EQ(writes[0].accesses[1].object, ObjectId(ObjectKind::kMutex, 0));
  EXPECT_FALSE(writes[0].accesses[1].write);
  EXPECT_NE(writes[0].breaks, 0);
  // State without a guard: the object alone.
  const std::vector<Footprint> reads = strategy.Touching(1);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_FALSE(reads[0].accesses[0].write);
  EXPECT_EQ(reads[0].count, 1);
  EXPECT_EQ(reads[0].breaks, 0);
  const std::vector<Event> accesses = Accesses(r);
  ASSERT_EQ(accesses.size(), 2u);
  EXPECT_EQ(accesses[0].As<payload::SharedAccess>().guard, SharedGuard::kUnguarded);
  EXPECT_EQ(accesses[1].As<payload::SharedAccess>().object, 1u);
}

TEST(SharedAccessTest, StepsTakenHoldingAGuardDeclareItsBit) {
  Simulator sim;
  Recording strategy;
  sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    std::unique_ptr<Mutex> guard = h.NewMutex("guard");
    std::unique_ptr<Mutex> other = h.NewMutex("other");
    Shared<int> value(h, "counter", guard.get());
    MutexLock lock(guard.get());
    other->Lock();  // a step taken holding the guard
    other->Unlock();
  });
  int holding = 0;
  for (const Footprint& f : strategy.seen) {
    if (f.count == 1 && f.accesses[0].object == ObjectId(ObjectKind::kMutex, 1)) {
      EXPECT_NE(f.held, 0);
      ++holding;
    }
  }
  EXPECT_EQ(holding, 2);  // other's lock and unlock
}

TEST(SharedAccessTest, BreakingAGuardBitConflictsWithHoldingItOnly) {
  Footprint holds = Touches(ObjectId(ObjectKind::kMemory, 0), true);
  holds.held = 1;
  Footprint holds_too = Touches(ObjectId(ObjectKind::kStream, 0), true);
  holds_too.held = 1;
  const Footprint breaks = Breaking(Touches(ObjectId(ObjectKind::kShared, 0), false), 1);
  const Footprint breaks_other = Breaking(Touches(ObjectId(ObjectKind::kShared, 1), false), 2);
  EXPECT_TRUE(Dependent(holds, breaks));
  EXPECT_TRUE(Dependent(breaks, holds));
  EXPECT_FALSE(Dependent(holds, holds_too));
  EXPECT_FALSE(Dependent(holds, breaks_other));
  EXPECT_FALSE(Dependent(breaks, breaks_other));
}

TEST(SharedAccessTest, DigestsLeaveTheAccessesOut) {
  Simulator sim;
  auto program = [](bool declare) {
    return [declare](Device&, Host& h, RuntimeObserver&) {
      std::unique_ptr<Mutex> mu = h.NewMutex("m");
      Shared<int> value;  // thread-owned: never reported
      std::unique_ptr<Shared<int>> shared;
      if (declare) shared = std::make_unique<Shared<int>>(h, "counter", mu.get());
      MutexLock lock(mu.get());
      (declare ? shared->Write() : value.Write()) = 4;
    };
  };
  Recording first, second;
  const std::uint64_t with = sim.Run(first, program(true)).digest;
  EXPECT_EQ(Accesses(sim.Run(second, program(true))).size(), 1u);
  const std::uint64_t without = sim.Run(second, program(false)).digest;
  EXPECT_EQ(with, without);
}

TEST(SharedAccessTest, AnAccessOutsideAnExecutionIsPlain) {
  Simulator sim;
  Recording strategy;
  std::unique_ptr<Shared<int>> kept;
  sim.Run(strategy, [&](Device&, Host& h, RuntimeObserver&) {
    kept = std::make_unique<Shared<int>>(h, "counter", nullptr, 9);
  });
  EXPECT_EQ(kept->Read(), 9);  // no fiber, no point: the engine ignores it
}

}  // namespace
}  // namespace stackcheck::sim
