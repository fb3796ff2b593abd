#include "properties/scenarios.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"

namespace stackcheck::properties {
namespace {

// `threads` x `regions` regions of `teams` x `warps` each.
Scenario Grid(int threads, int regions, std::uint32_t teams, std::uint32_t warps) {
  Scenario s;
  RegionId next = 1;
  for (int t = 0; t < threads; ++t) {
    ThreadProgram program;
    for (int r = 0; r < regions; ++r) program.ops.push_back(HostOp::Run(next++, teams, warps));
    s.threads.push_back(program);
  }
  return s;
}

// 2 threads x 2 regions of 1 then 2 slots: the smallest scenario in which two
// threads race for a cached block that must grow.
Scenario Peer() {
  Scenario s;
  RegionId next = 1;
  for (int t = 0; t < 2; ++t) {
    ThreadProgram program;
    for (std::uint32_t units : {1u, 2u}) {
      program.ops.push_back(HostOp::Run(next++, /*teams=*/units, /*warps=*/1));
    }
    s.threads.push_back(program);
  }
  return s;
}

constexpr std::uint64_t kMs = 1000 * 1000;

HostOp Run(RegionId id, std::uint32_t teams, std::uint32_t warps, std::uint64_t duration_ns,
           bool aborts = false) {
  HostOp op = HostOp::Run(id, teams, warps, aborts);
  op.region.duration_ns = duration_ns;
  return op;
}

Scenario Threads(std::vector<std::vector<HostOp>> programs) {
  Scenario s;
  for (auto& ops : programs) s.threads.push_back(ThreadProgram{std::move(ops)});
  return s;
}

// The scenarios `validate` runs on the GPU and beside it on the simulator.
// Each aims at one hazard of docs/libgomp-model.md and runs in well under a
// second on a GPU, so a whole hardware campaign fits a short device lease.
std::vector<NamedScenario> HardwareRows() {
  std::vector<NamedScenario> out;
  out.push_back(
      {"one-region", "baseline: one 8x8 region, then close", Threads({{Run(1, 8, 8, 1 * kMs)}})});
  // Region 1's kernel is still running (and, in V1, its release callback
  // pending) when region 2 needs a bigger block: V1b's deadlock.
  out.push_back({"grow-while-busy",
                 "a larger region right after a long one: the block must grow "
                 "while the first kernel (and its callback) is pending",
                 Threads({{Run(1, 8, 1, 100 * kMs), Run(2, 16, 8, 1 * kMs)}})});
  out.push_back({"two-threads", "two host threads running regions of different sizes at once",
                 Threads({{Run(1, 8, 4, 5 * kMs), Run(2, 16, 8, 2 * kMs)},
                          {Run(3, 8, 8, 5 * kMs), Run(4, 4, 8, 1 * kMs)}})});
  out.push_back({"abort", "the second region aborts (__trap)",
                 Threads({{Run(1, 8, 8, 1 * kMs), Run(2, 8, 8, 1 * kMs, true)}})});
  out.push_back({"abort-beside-region",
                 "one thread's region aborts while another thread's is running",
                 Threads({{Run(1, 8, 8, 2 * kMs, true)}, {Run(2, 8, 8, 50 * kMs)}})});
  {
    Scenario s = Threads({{Run(1, 8, 8, 1 * kMs, true)}});
    s.faults.device_constructors = true;
    s.faults.device_destructors = true;
    out.push_back({"abort-with-destructors",
                   "an aborting region in an image with device destructors "
                   "(B1: the exit path runs the destructor kernel)",
                   std::move(s)});
  }
  {
    Scenario s = Threads({{Run(1, 8, 8, 1 * kMs)}});
    s.faults.device_constructors = true;
    s.faults.device_destructors = true;
    out.push_back(
        {"ctor-dtor", "constructor and destructor kernels around one region", std::move(s)});
  }
  {
    // libgomp's exit-time hang: the aborting thread's exit handler waits for
    // the device lock, which the mapping thread holds while it waits for the
    // stacks lock inside device_alloc.
    RegionSpec mapped;
    mapped.teams = 8;
    mapped.warps = 8;
    mapped.duration_ns = 1 * kMs;
    mapped.mapped_vars = 1;
    std::vector<HostOp> mapping;
    for (RegionId id = 2; id < 12; ++id) {
      mapped.id = id;
      mapping.push_back(HostOp::Run(mapped));
      mapping.push_back(HostOp::DeviceAlloc(kMiB, 0));
    }
    out.push_back({"abort-while-mapping",
                   "one thread's region aborts while another maps data and "
                   "allocates (device lock against stacks lock at exit)",
                   Threads({{Run(1, 8, 8, 2 * kMs, true)}, std::move(mapping)})});
  }
  {
    // B1 as trunk has it: a rejected launch is fatal under the stacks lock,
    // and the destructor at exit relocks it.
    Scenario s = Threads({{Run(1, 8, 8, 1 * kMs)}});
    s.faults.launch_failure_at_call = 1;
    s.faults.device_destructors = true;
    out.push_back({"rejected-launch-with-destructors",
                   "the first launch is rejected (not sticky) in an image with "
                   "device destructors (B1)",
                   std::move(s)});
  }
  // 256 teams x 8 warps x 128 KiB = 256 MiB, above the 128 MiB soft limit.
  out.push_back({"alloc-after-big-region",
                 "a user allocation after a region whose block exceeds the "
                 "soft limit",
                 Threads({{Run(1, 256, 8, 1 * kMs), HostOp::DeviceAlloc(64 * kMiB, 0),
                           HostOp::DeviceFree(0)}})});
  {
    // 96 MiB cached + 200 MiB requested > 256 MiB: only a policy that gives
    // the cache back on OOM gets its allocation.
    Scenario s = Threads(
        {{Run(1, 96, 8, 1 * kMs), HostOp::DeviceAlloc(200 * kMiB, 0), HostOp::DeviceFree(0)}});
    s.device_capacity = 256 * kMiB;
    out.push_back({"oom-needs-cache",
                   "an allocation that fits only if the cached block is freed "
                   "(capacity 256 MiB emulated)",
                   std::move(s)});
  }
  for (NamedScenario& s : out) s.on_hardware = true;
  return out;
}

// The policy suite's races (tests/policies/policy_sim_test.cc judges each
// policy on each): small regions on the default 1 GiB device, explored under
// random schedules, each provoking one hazard with another thread beside it.
std::vector<NamedScenario> RaceRows() {
  std::vector<NamedScenario> out;
  out.push_back(
      {"race-grow", "a region grows the block while another thread runs, allocates and frees",
       Threads({{HostOp::Run(1, 2, 8), HostOp::Run(2, 8, 8)},
                {HostOp::Run(3, 4, 8), HostOp::DeviceAlloc(kMiB, 0), HostOp::DeviceFree(0)}})});
  for (const bool cdtors : {false, true}) {
    Scenario s = Threads({{HostOp::Run(1, 2, 2, /*aborts=*/true)}, {HostOp::Run(2, 2, 2)}});
    s.faults.device_constructors = cdtors;
    s.faults.device_destructors = cdtors;
    out.push_back({cdtors ? "race-abort+cdtors" : "race-abort",
                   cdtors ? "race-abort in an image with constructor and destructor kernels"
                          : "one thread's region aborts while another thread's runs",
                   std::move(s)});
  }
  out.push_back(
      {"race-soft-limit",
       "a block above the soft limit, then a user allocation, beside another region",
       Threads({{HostOp::Run(1, 140, 8), HostOp::DeviceAlloc(kMiB, 0)}, {HostOp::Run(2, 2, 8)}})});
  out.push_back({"race-oom", "a 512 MiB block, then a 600 MiB allocation that fits only without it",
                 Threads({{HostOp::Run(1, 512, 8), HostOp::DeviceAlloc(600 * kMiB, 0)},
                          {HostOp::Run(2, 2, 2)}})});
  {
    RegionSpec aborting;
    aborting.id = 1;
    aborting.teams = 2;
    aborting.warps = 2;
    aborting.aborts = true;
    aborting.mapped_vars = 1;
    out.push_back({"race-oom-abort",
                   "two failures in one execution: a region aborts while another's 512 MiB "
                   "stacks block does not fit beside a 600 MiB allocation",
                   Threads({{HostOp::DeviceAlloc(600 * kMiB, 0), HostOp::Run(aborting)},
                            {HostOp::Run(2, 512, 8)}})});
  }
  for (const bool aborts : {false, true}) {
    Scenario s = Threads(
        {{HostOp::Run(1, 4, 8), HostOp::DeviceAlloc(200 * kMiB, 0), HostOp::Run(2, 140, 8),
          HostOp::DeviceFree(0)},
         {HostOp::Run(3, 2, 2, aborts), HostOp::DeviceAlloc(kMiB, 0), HostOp::Run(4, 1, 1)},
         {HostOp::DeviceAlloc(600 * kMiB, 1), HostOp::Run(5, 8, 8), HostOp::DeviceFree(1)}});
    s.faults.alloc_failure_at_call = 4;
    s.faults.device_constructors = aborts;
    s.faults.device_destructors = aborts;
    out.push_back({aborts ? "race-stress+abort" : "race-stress",
                   aborts ? "race-stress with an aborting region and constructor and "
                            "destructor kernels"
                          : "three threads: growth, the soft limit, allocations under "
                            "pressure, the 4th cuMemAlloc failing, frees",
                   std::move(s)});
  }
  {
    RegionSpec mapped;
    mapped.id = 2;
    mapped.mapped_vars = 1;
    out.push_back({"race-abort-while-mapping",
                   "abort-while-mapping at its smallest: one region aborts while another "
                   "thread maps data and allocates",
                   Threads({{HostOp::Run(1, 2, 2, /*aborts=*/true)},
                            {HostOp::DeviceAlloc(kMiB, 0), HostOp::Run(mapped),
                             HostOp::DeviceAlloc(kMiB, 1)}})});
  }
  return out;
}

// Exhaustive proofs with the device lock, mapping and an abort at 2 threads x
// 3 regions (docs/figures.md): the parameterised scenario with thread 0's
// last region aborting while thread 1 maps a variable in each of its
// regions, the aborting region itself unmapped or mapping one. With every
// region of both threads mapping (`check --regions=3 --mapped_vars=1
// --abort`), check's progress estimate puts the search at billions of
// executions.
std::vector<NamedScenario> ProofRows() {
  std::vector<NamedScenario> out;
  for (const bool aborting_region_maps : {false, true}) {
    Scenario s = RegionsScenario(/*threads=*/2, /*regions=*/3, /*abort=*/true, /*mapped_vars=*/1);
    for (HostOp& op : s.threads[0].ops) op.region.mapped_vars = 0;
    if (aborting_region_maps) s.threads[0].ops.back().region.mapped_vars = 1;
    out.push_back({aborting_region_maps ? "mapped-abort-beside-mapping" : "abort-beside-mapping",
                   aborting_region_maps
                       ? "abort-beside-mapping, the aborting region mapping a variable too"
                       : "2 threads x 3 regions: thread 0's last region aborts while thread 1 "
                         "maps a variable in each of its regions",
                   std::move(s)});
  }
  return out;
}

Scenario NoExit(Scenario s) {
  s.close_at_end = false;
  return s;
}

std::vector<NamedScenario> Build() {
  std::vector<NamedScenario> all = {
      {"standard", "2 threads x 4 regions of 2 teams x 2 warps; returns from main unclosed",
       NoExit(Grid(2, 4, 2, 2))},
      {"standard+exit", "standard, closing the device at exit as libgomp's exit handler does",
       Grid(2, 4, 2, 2)},
      {"peer", "2 threads x 2 regions of 1 then 2 warp slots; returns from main unclosed",
       NoExit(Peer())},
      {"peer+exit", "peer, closing the device at exit", Peer()},
  };
  for (NamedScenario& s : HardwareRows()) all.push_back(std::move(s));
  for (NamedScenario& s : RaceRows()) all.push_back(std::move(s));
  for (NamedScenario& s : ProofRows()) all.push_back(std::move(s));
  return all;
}

}  // namespace

const std::vector<NamedScenario>& AllScenarios() {
  static const std::vector<NamedScenario>* const all = new std::vector<NamedScenario>(Build());
  return *all;
}

const std::vector<NamedScenario>& HardwareScenarios() {
  static const std::vector<NamedScenario>* const hardware = [] {
    auto* out = new std::vector<NamedScenario>;
    for (const NamedScenario& s : AllScenarios()) {
      if (s.on_hardware) out->push_back(s);
    }
    return out;
  }();
  return *hardware;
}

const NamedScenario* FindHardwareScenario(absl::string_view name) {
  for (const NamedScenario& s : HardwareScenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const NamedScenario* FindScenario(absl::string_view name) {
  for (const NamedScenario& s : AllScenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string ScenarioNames() {
  std::vector<absl::string_view> names;
  for (const NamedScenario& s : AllScenarios()) names.push_back(s.name);
  return absl::StrJoin(names, ", ");
}

Scenario RegionsScenario(int threads, int regions, bool abort, int mapped_vars) {
  Scenario s;
  RegionId next = 1;
  for (int t = 0; t < threads; ++t) {
    ThreadProgram program;
    for (int r = 0; r < regions; ++r) {
      HostOp op = HostOp::Run(next++, /*teams=*/static_cast<std::uint32_t>(1 + (r + t) % 2),
                              /*warps=*/1);
      op.region.mapped_vars = static_cast<std::uint32_t>(mapped_vars);
      program.ops.push_back(op);
    }
    s.threads.push_back(program);
  }
  if (abort && !s.threads.empty() && !s.threads[0].ops.empty()) {
    s.threads[0].ops.back().region.aborts = true;
  }
  return s;
}

}  // namespace stackcheck::properties
