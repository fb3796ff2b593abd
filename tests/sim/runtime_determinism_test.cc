// Determinism through the real runtime: random scenarios under every
// registered policy and every simulator mode replay to the same digest on a
// reused and on a fresh simulator. This drives the engine's hardest paths:
// exits from any thread (fatal errors), deadlocking policies, callbacks that
// unlock or take the stacks lock, destroyed mutexes. Programs use two
// allocation slots, so leftover blocks are freed in the runner's slot order
// (it once iterated an absl::flat_hash_map, whose order absl randomises in
// builds without NDEBUG; replaying found it).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "core/scenario_runner.h"
#include "gtest/gtest.h"
#include "sim/simulator.h"
#include "sim/strategies/rng.h"
#include "sim/test_strategies.h"

namespace stackcheck::sim {
namespace {

Scenario RandomScenario(Rng& rng) {
  Scenario s;
  RegionId next = 1;
  const int threads = 1 + static_cast<int>(rng.Below(3));
  for (int t = 0; t < threads; ++t) {
    ThreadProgram program;
    const int ops = 1 + static_cast<int>(rng.Below(4));
    for (int i = 0; i < ops; ++i) {
      HostOp op;
      switch (rng.Below(5)) {
        case 0:
          op.kind = HostOp::Kind::kDeviceAlloc;
          op.bytes = (1 + rng.Below(64)) * kMiB;
          break;
        case 1:
          op.kind = HostOp::Kind::kDeviceFree;
          break;
        default:
          op.region.id = next++;
          op.region.teams = 1 + static_cast<std::uint32_t>(rng.Below(8));
          op.region.warps = 1 + static_cast<std::uint32_t>(rng.Below(4));
          op.region.duration_ns = 100 + rng.Below(10000);
          op.region.aborts = rng.Below(10) == 0;
      }
      op.slot = static_cast<std::uint32_t>(rng.Below(2));
      program.ops.push_back(op);
    }
    s.threads.push_back(program);
  }
  s.device_capacity = (16 + rng.Below(256)) * kMiB;
  s.faults.alloc_failure_at_call = static_cast<std::uint32_t>(rng.Below(5));
  s.faults.device_constructors = rng.Below(3) == 0;
  s.faults.device_destructors = rng.Below(3) == 0;
  s.close_at_end = rng.Below(4) != 0;
  return s;
}

TEST(RuntimeDeterminism, EveryPolicyReplaysToTheSameDigest) {
  const absl::Span<const PolicyInfo> policies = AllPolicies();
  ASSERT_FALSE(policies.empty());
  Simulator reused;
  absl::flat_hash_set<std::string> properties;
  int exits = 0;
  constexpr int kCases = 600;
  for (int i = 0; i < kCases; ++i) {
    Rng rng(static_cast<std::uint64_t>(i));
    const Scenario scenario = RandomScenario(rng);
    const PolicyInfo& policy = policies[i % policies.size()];
    SimConfig config;
    config.device_capacity = scenario.device_capacity;
    config.alloc_failure_at_call = scenario.faults.alloc_failure_at_call;
    config.modes.free_waits_for_streams = rng.Below(2) == 0;
    config.modes.serial_callback_thread = rng.Below(2) == 0;
    config.modes.step_bound = 20000;
    auto program = [&](Device& d, Host& h, RuntimeObserver& o) {
      RunScenario(scenario, d, h, o, policy);
    };

    reused.set_config(config);
    testing::SeededRandom random(rng.Below(1u << 30));
    const ExecutionResult original = reused.Run(random, program);  // a copy
    if (original.violation.has_value()) properties.insert(original.violation->property);
    exits += original.process_exited;

    testing::Replay replay(original.choices);
    const ExecutionResult& again = reused.Run(replay, program);
    ASSERT_TRUE(replay.exact()) << "case " << i << " (" << policy.name << ")";
    ASSERT_EQ(again.digest, original.digest) << "case " << i << " (" << policy.name << ")";

    Simulator fresh(config);
    testing::Replay replay2(original.choices);
    const ExecutionResult& third = fresh.Run(replay2, program);
    ASSERT_EQ(third.digest, original.digest) << "case " << i << " (" << policy.name << ")";
    ASSERT_EQ(third.exit_status, original.exit_status) << "case " << i;
  }
  EXPECT_GT(exits, 0);
  // The engine's own verdict shows up among the cases (V1b deadlocks).
  EXPECT_TRUE(properties.contains("no-deadlock"));
}

}  // namespace
}  // namespace stackcheck::sim
