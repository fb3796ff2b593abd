// EXT-01 and EXT-02, the extension rules of docs/cuda-semantics.md: a
// stream-ordered write to a device-mapped host word (cuStreamWriteValue32),
// and a kernel's completion write to one. event-fence's completion ledger rests on EXT-02;
// hardware/sem_probes.cc checks both on hardware.
#include <vector>

#include "gtest/gtest.h"
#include "sim/sim_test_util.h"
#include "sim/simulator.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

using testing::Args;
using testing::Count;
using testing::Grid;
using testing::Warps;

TEST(ExtHostWord, EXT01_WriteLandsInStreamOrderAndIsDroppedBehindAFault) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::vector<std::uint32_t> seen;
  std::vector<CuResult> results;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    DevicePtr block = 0;
    ASSERT_EQ(d.MemAlloc(&block, kMiB), CuResult::kSuccess);
    HostWordHandle word{};
    ASSERT_EQ(d.HostWordAlloc(&word), CuResult::kSuccess);
    seen.push_back(d.HostWordLoad(word));  // 0: fresh
    ASSERT_EQ(d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 1, 1000000), kLegacyStream),
              CuResult::kSuccess);
    ASSERT_EQ(d.StreamWriteValue32(kLegacyStream, word, 1), CuResult::kSuccess);
    // The non-preemptive strategy keeps running this thread: the kernel has
    // not even started, so its write has not happened either.
    seen.push_back(d.HostWordLoad(word));
    results.push_back(d.StreamSynchronize(kLegacyStream));
    seen.push_back(d.HostWordLoad(word));  // 1: behind the completed kernel
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), Args(block, 2, 10, KernelAction::kTrap),
                   kLegacyStream);
    results.push_back(d.StreamWriteValue32(kLegacyStream, word, 2));
    results.push_back(d.StreamSynchronize(kLegacyStream));
    // Readable after the fault, and still 1: the write behind the trap never
    // happened.
    seen.push_back(d.HostWordLoad(word));
    results.push_back(d.StreamWriteValue32(kLegacyStream, word, 3));
    results.push_back(d.HostWordFree(word));  // context-dependent: refused
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 0, 1, 1}));
  EXPECT_EQ(results,
            (std::vector<CuResult>{CuResult::kSuccess, CuResult::kSuccess, CuResult::kLaunchFailed,
                                   CuResult::kLaunchFailed, CuResult::kLaunchFailed}));
  EXPECT_EQ(Count(r.trace, EventKind::kHostWordWrite), 1);
}

TEST(ExtHostWord, EXT01_BadHandlesAreRefusedAndTheContextOwnsItsWords) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::vector<CuResult> results;
  std::uint32_t after_destroy = 7;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    testing::Open(d);
    HostWordHandle word{};
    results.push_back(d.StreamWriteValue32(kLegacyStream, HostWordHandle{9}, 1));
    results.push_back(d.HostWordAlloc(nullptr));
    results.push_back(d.HostWordAlloc(&word));
    results.push_back(d.StreamWriteValue32(StreamHandle{5}, word, 1));
    results.push_back(d.StreamWriteValue32(kLegacyStream, word, 4));
    results.push_back(d.CtxDestroy());
    after_destroy = d.HostWordLoad(word);
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(results, (std::vector<CuResult>{CuResult::kInvalidValue, CuResult::kInvalidValue,
                                            CuResult::kSuccess, CuResult::kInvalidHandle,
                                            CuResult::kSuccess, CuResult::kSuccess}));
  EXPECT_EQ(after_destroy, 0u) << "freed with the context";
  EXPECT_EQ(Count(r.trace, EventKind::kHostWordWrite), 1) << "drained at destroy";
}

TEST(ExtHostWord, EXT02_KernelWritesItsCompletionWordUnlessItTraps) {
  Simulator sim;
  testing::NonPreemptive strategy;
  std::vector<std::uint32_t> seen;
  CuResult synced = CuResult::kSuccess;
  const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host&, RuntimeObserver&) {
    const testing::Opened o = testing::Open(d);
    DevicePtr block = 0;
    ASSERT_EQ(d.MemAlloc(&block, kMiB), CuResult::kSuccess);
    HostWordHandle word{};
    ASSERT_EQ(d.HostWordAlloc(&word), CuResult::kSuccess);
    KernelArgs a = Args(block, 1, 1000000);
    a.completion_word = word;
    a.completion_value = 1;
    ASSERT_EQ(d.LaunchKernel(o.kernel, Grid(1), Warps(1), a, kLegacyStream), CuResult::kSuccess);
    a = Args(block, 2, 10);
    a.completion_word = word;
    a.completion_value = 2;
    ASSERT_EQ(d.LaunchKernel(o.kernel, Grid(1), Warps(1), a, kLegacyStream), CuResult::kSuccess);
    a = Args(block, 3, 10, KernelAction::kTrap);
    a.completion_word = word;
    a.completion_value = 3;
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), a, kLegacyStream);
    a = Args(block, 4, 10);
    a.completion_word = word;
    a.completion_value = 4;
    d.LaunchKernel(o.kernel, Grid(1), Warps(1), a, kLegacyStream);  // dropped
    seen.push_back(d.HostWordLoad(word));                           // nothing has run yet
    synced = d.StreamSynchronize(kLegacyStream);
    seen.push_back(d.HostWordLoad(word));  // 2: the last kernel that completed
  });
  ASSERT_FALSE(r.violation.has_value()) << r.violation->message;
  EXPECT_EQ(synced, CuResult::kLaunchFailed);
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(Count(r.trace, EventKind::kHostWordWrite), 2);
}

}  // namespace
}  // namespace stackcheck::sim
