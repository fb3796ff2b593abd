#include "properties/scenarios.h"

#include <cstdint>

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
  return all;
}

}  // namespace

const std::vector<NamedScenario>& AllScenarios() {
  static const std::vector<NamedScenario>* const all = new std::vector<NamedScenario>(Build());
  return *all;
}

std::vector<const NamedScenario*> HardwareScenarios() {
  std::vector<const NamedScenario*> out;
  for (const NamedScenario& s : AllScenarios()) {
    if (s.on_hardware) out.push_back(&s);
  }
  return out;
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
