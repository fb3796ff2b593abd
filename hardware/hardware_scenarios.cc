#include "hardware/hardware_scenarios.h"

#include <utility>

namespace stackcheck::hardware {
namespace {

constexpr std::uint64_t kMs = 1000 * 1000;

HostOp Run(RegionId id, std::uint32_t teams, std::uint32_t warps,
           std::uint64_t duration_ns, bool aborts = false) {
  HostOp op = HostOp::Run(id, teams, warps, aborts);
  op.region.duration_ns = duration_ns;
  return op;
}

Scenario Threads(std::vector<std::vector<HostOp>> programs) {
  Scenario s;
  for (auto& ops : programs) s.threads.push_back(ThreadProgram{std::move(ops)});
  return s;
}

std::vector<NamedScenario> Build() {
  std::vector<NamedScenario> out;
  out.push_back({"one-region", "baseline: one 8x8 region, then close",
                 Threads({{Run(1, 8, 8, 1 * kMs)}})});
  // Region 1's kernel is still running (and, in V1, its release callback
  // pending) when region 2 needs a bigger block: V1b's deadlock.
  out.push_back({"grow-while-busy",
                 "a larger region right after a long one: the block must grow "
                 "while the first kernel (and its callback) is pending",
                 Threads({{Run(1, 8, 1, 100 * kMs), Run(2, 16, 8, 1 * kMs)}})});
  out.push_back({"two-threads",
                 "two host threads running regions of different sizes at once",
                 Threads({{Run(1, 8, 4, 5 * kMs), Run(2, 16, 8, 2 * kMs)},
                          {Run(3, 8, 8, 5 * kMs), Run(4, 4, 8, 1 * kMs)}})});
  out.push_back({"abort", "the second region aborts (__trap)",
                 Threads({{Run(1, 8, 8, 1 * kMs), Run(2, 8, 8, 1 * kMs, true)}})});
  out.push_back({"abort-beside-region",
                 "one thread's region aborts while another thread's is running",
                 Threads({{Run(1, 8, 8, 2 * kMs, true)},
                          {Run(2, 8, 8, 50 * kMs)}})});
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
    out.push_back({"ctor-dtor",
                   "constructor and destructor kernels around one region",
                   std::move(s)});
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
  out.push_back(
      {"alloc-after-big-region",
       "a user allocation after a region whose block exceeds the "
       "soft limit",
       Threads({{Run(1, 256, 8, 1 * kMs), HostOp::DeviceAlloc(64 * kMiB, 0),
                 HostOp::DeviceFree(0)}})});
  {
    // 96 MiB cached + 200 MiB requested > 256 MiB: only a policy that gives
    // the cache back on OOM gets its allocation.
    Scenario s =
        Threads({{Run(1, 96, 8, 1 * kMs), HostOp::DeviceAlloc(200 * kMiB, 0),
                  HostOp::DeviceFree(0)}});
    s.device_capacity = 256 * kMiB;
    out.push_back({"oom-needs-cache",
                   "an allocation that fits only if the cached block is freed "
                   "(capacity 256 MiB emulated)",
                   std::move(s)});
  }
  return out;
}

}  // namespace

const std::vector<NamedScenario>& StandardHardwareScenarios() {
  static const auto* const scenarios = new std::vector<NamedScenario>(Build());
  return *scenarios;
}

const NamedScenario* FindHardwareScenario(absl::string_view name) {
  for (const NamedScenario& s : StandardHardwareScenarios()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace stackcheck::hardware
