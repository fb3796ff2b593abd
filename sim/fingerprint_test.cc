// The fingerprint names the bug, not the schedule: the same operation on the
// same kind of actor under the same locks and fault gives the same text
// whatever the thread ids; any of those changing gives another.
#include "sim/fingerprint.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/cu_result.h"
#include "gtest/gtest.h"
#include "sim/driver_api.h"
#include "sim/event.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {
namespace {

constexpr std::uint32_t kStacksLock = 0;
constexpr std::uint32_t kDeviceLock = 1;

// Actors 0..3 are host threads T0..T3, 4 the callback thread, 5 gpu:s0.
FingerprintFacts Facts(ActorId exiting = kNoActor, std::size_t from = 0) {
  FingerprintFacts f;
  f.actor_kind = [](ActorId a) -> absl::string_view {
    return a < 4 ? "host thread" : a == 4 ? "callback thread" : "gpu stream";
  };
  f.mutex_name = [](std::uint32_t m) -> absl::string_view {
    return m == kStacksLock ? "stacks lock" : "device lock";
  };
  f.exit_handlers_actor = exiting;
  f.exit_handlers_from = from;
  return f;
}

// An event of `actor` at time 0 (a fingerprint does not look at time), with
// what its kind carries left 0 unless given.
Event E(ActorId actor, EventKind kind) { return Event(0, actor, kind, EventWords{}); }
template <typename Payload>
Event E(ActorId actor, EventKind kind, const Payload& payload) {
  return Event(0, actor, kind, payload);
}

Violation At(std::string property, std::size_t index) {
  Violation v;
  v.property = std::move(property);
  v.event_index = index;
  return v;
}

// `freer` takes `lock`, frees a block, and the GPU starts a kernel on it.
std::vector<Event> FreeUnderKernel(ActorId freer, std::uint32_t lock, bool abort_first) {
  std::vector<Event> t;
  if (abort_first) {
    t.push_back(E(5, EventKind::kKernelEnd,
                  payload::KernelEnd{payload::Kernel{0}, CuResult::kLaunchFailed}));
  }
  const ActorId other = freer == 1 ? 2 : 1;
  t.push_back(E(other, EventKind::kMutexLock, payload::Mutex{kDeviceLock}));  // someone else's
  t.push_back(E(freer, EventKind::kMutexLock, payload::Mutex{lock}));
  t.push_back(E(freer, EventKind::kFree));
  t.push_back(E(5, EventKind::kKernelStart));
  return t;
}

std::string UseAfterFree(const std::vector<Event>& t) {
  Violation v = At("no-use-after-free", t.size() - 1);
  v.cause_index = t.size() - 2;
  return Fingerprint(v, t, Facts());
}

TEST(FingerprintTest, SameBugOnAnotherThreadIsTheSame) {
  EXPECT_EQ(UseAfterFree(FreeUnderKernel(1, kStacksLock, false)),
            UseAfterFree(FreeUnderKernel(2, kStacksLock, false)));
}

TEST(FingerprintTest, NamesOperationActorKindLocksAndFault) {
  const std::string fp = UseAfterFree(FreeUnderKernel(1, kStacksLock, true));
  EXPECT_EQ(fp,
            "no-use-after-free: kernel-start on gpu stream holding {}; after free on host "
            "thread holding {stacks lock}; fault abort");
}

TEST(FingerprintTest, OtherLocksOrFaultAreAnotherBug) {
  const std::string base = UseAfterFree(FreeUnderKernel(1, kStacksLock, false));
  EXPECT_NE(base, UseAfterFree(FreeUnderKernel(1, kDeviceLock, false)));
  EXPECT_NE(base, UseAfterFree(FreeUnderKernel(1, kStacksLock, true)));
}

TEST(FingerprintTest, AnUnlockedMutexIsNotHeld) {
  std::vector<Event> t = {
      E(1, EventKind::kMutexLock, payload::Mutex{kStacksLock}),
      E(1, EventKind::kMutexUnlock, payload::MutexHeld{kStacksLock, /*owner=*/1}),
      E(1, EventKind::kDriverCall, payload::Call{DriverCall::kMemFree})};
  EXPECT_TRUE(absl::StrContains(Fingerprint(At("p", 2), t, Facts()),
                                "cuMemFree on host thread holding {};"));
}

TEST(FingerprintTest, ExitHandlersAreTheirOwnActorKind) {
  std::vector<Event> t = {E(1, EventKind::kMutexLock, payload::Mutex{kDeviceLock}),
                          E(1, EventKind::kMutexDestroy, payload::MutexHeld{kStacksLock})};
  const std::string before = Fingerprint(At("mutex-discipline", 1), t, Facts());
  const std::string in_handlers = Fingerprint(At("mutex-discipline", 1), t, Facts(1, 1));
  EXPECT_NE(before, in_handlers);
  EXPECT_EQ(in_handlers,
            "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers "
            "holding {device lock}; fault none");
}

TEST(FingerprintTest, FirstFaultCounts) {
  std::vector<Event> t = {
      E(1, EventKind::kAllocFailed),
      E(1, EventKind::kDriverCall,
        payload::Call{DriverCall::kLaunchKernel, 0, CuResult::kLaunchOutOfResources}),
      E(1, EventKind::kThreadEnd)};
  EXPECT_TRUE(absl::EndsWith(Fingerprint(At("p", 2), t, Facts()), "fault out-of-memory"));
  t.erase(t.begin());
  EXPECT_TRUE(absl::EndsWith(Fingerprint(At("p", 1), t, Facts()), "fault rejected launch"));
}

TEST(FingerprintTest, AReportIsTheSameWhicheverCallPrintedIt) {
  std::vector<Event> copy = {E(2, EventKind::kDriverCall, payload::Call{DriverCall::kMemcpyHtoD}),
                             E(2, EventKind::kErrorReported)};
  std::vector<Event> alloc = {E(1, EventKind::kDriverCall, payload::Call{DriverCall::kMemAlloc}),
                              E(1, EventKind::kErrorReported)};
  EXPECT_EQ(Fingerprint(At("abort-attribution", 1), copy, Facts()),
            Fingerprint(At("abort-attribution", 1), alloc, Facts()));
  EXPECT_EQ(Fingerprint(At("abort-attribution", 1), copy, Facts()),
            "abort-attribution: error-reported on host thread holding {}; fault none");
}

TEST(FingerprintTest, AViolationAtTheEndHasNoSite) {
  std::vector<Event> t = {E(1, EventKind::kThreadEnd)};
  Violation v = At("abort-attribution", 0);
  v.at_end = true;
  EXPECT_EQ(Fingerprint(v, t, Facts()), "abort-attribution: at the end; fault none");
}

Violation Deadlock(std::vector<WaitLink> links, bool cyclic = true) {
  Violation v = At("no-deadlock", 0);
  v.waits = std::move(links);
  v.waits_form_cycle = cyclic;
  return v;
}

TEST(FingerprintTest, ADeadlockCycleIsCanonicalWhateverItsStartAndIds) {
  const std::vector<Event> t = {E(1, EventKind::kThreadEnd)};
  const Violation a = Deadlock({{1, "T1 waits for mutex 'device lock' held by T2"},
                                {2, "T2 waits for mutex 'stacks lock' held by T1"}});
  const Violation b = Deadlock({{3, "T3 waits for mutex 'stacks lock' held by T0"},
                                {0, "T0 waits for mutex 'device lock' held by T3"}});
  EXPECT_EQ(Fingerprint(a, t, Facts()), Fingerprint(b, t, Facts()));
  EXPECT_EQ(Fingerprint(a, t, Facts()),
            "no-deadlock: cycle [host thread waits for mutex 'device lock' held by host "
            "thread -> host thread waits for mutex 'stacks lock' held by host thread]; "
            "fault none");
}

TEST(FingerprintTest, ARelockIsNotTheTwoThreadCycle) {
  const std::vector<Event> t = {E(1, EventKind::kThreadEnd)};
  const Violation relock =
      Deadlock({{1, "T1 waits for mutex 'stacks lock' held by T1 itself (relock)"}});
  const Violation cycle = Deadlock({{1, "T1 waits for mutex 'device lock' held by T2"},
                                    {2, "T2 waits for mutex 'stacks lock' held by T1"}});
  EXPECT_NE(Fingerprint(relock, t, Facts()), Fingerprint(cycle, t, Facts()));
  EXPECT_NE(Fingerprint(relock, t, Facts()), Fingerprint(relock, t, Facts(1, 0)));
}

TEST(FingerprintTest, StreamAndCallbackIdsDoNotCount) {
  const std::vector<Event> t = {E(1, EventKind::kThreadEnd)};
  const Violation a = Deadlock({{1, "T1 waits in cuMemFree for gpu:s0 to drain"},
                                {5, "gpu:s0 waits for callback #1 running on callback"},
                                {4, "callback waits for mutex 'stacks lock' held by T1"}});
  const Violation b = Deadlock({{4, "callback waits for mutex 'stacks lock' held by T2"},
                                {2, "T2 waits in cuMemFree for gpu:s1 to drain"},
                                {5, "gpu:s1 waits for callback #7 running on callback"}});
  EXPECT_EQ(Fingerprint(a, t, Facts()), Fingerprint(b, t, Facts()));
}

TEST(FingerprintTest, ActorKindsFromNames) {
  EXPECT_EQ(ActorKindOfName("T12"), "host thread");
  EXPECT_EQ(ActorKindOfName("callback"), "callback thread");
  EXPECT_EQ(ActorKindOfName("callback3"), "callback thread");
  EXPECT_EQ(ActorKindOfName("gpu:s2"), "gpu stream");
  EXPECT_EQ(ActorKindOfName("To"), "");
  EXPECT_EQ(ActorKindOfName("mutex"), "");
}

}  // namespace
}  // namespace stackcheck::sim
