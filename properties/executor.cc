#include "properties/executor.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

#include "core/scenario_runner.h"
#include "properties/schedule_recorder.h"
#include "sim/monitors/monitors.h"
#include "sim/simulator.h"
#include "sim/strategies/sequence_strategy.h"

namespace stackcheck::properties {

std::vector<const PropertyInfo*> SimProperties() {
  std::vector<const PropertyInfo*> out;
  for (const PropertyInfo& p : AllProperties()) {
    if (p.ObservableOn(kSimBackend)) out.push_back(&p);
  }
  return out;
}

namespace {

// Building a Simulator maps fiber stacks; reusing one per monitor set halves
// the cost of an execution. Monitors take the soft limit at construction, so
// it is part of the key. One cache per thread: Simulators are not shared.
absl::StatusOr<sim::Simulator*> SimulatorFor(absl::Span<const PropertyInfo* const> monitored,
                                             std::uint64_t soft_limit) {
  thread_local absl::flat_hash_map<std::string, std::unique_ptr<sim::Simulator>> cache;
  std::string key = absl::StrCat(soft_limit);
  for (const PropertyInfo* p : monitored) {
    if (p->checker == Checker::kMonitor) absl::StrAppend(&key, "|", p->monitor_name);
  }
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  sim::MonitorParams params;
  params.soft_limit = soft_limit;
  std::vector<std::unique_ptr<sim::Monitor>> monitors;
  for (const PropertyInfo* p : monitored) {
    if (p->checker != Checker::kMonitor) continue;
    absl::StatusOr<std::unique_ptr<sim::Monitor>> m = sim::MakeMonitor(p->monitor_name, params);
    if (!m.ok()) return m.status();
    monitors.push_back(*std::move(m));
  }
  if (cache.size() >= 256) cache.clear();  // bound memory on long, varied runs
  auto simulator = std::make_unique<sim::Simulator>(sim::SimConfig{}, std::move(monitors));
  sim::Simulator* raw = simulator.get();
  cache.emplace(std::move(key), std::move(simulator));
  return raw;
}

}  // namespace

sim::SimConfig SimConfigFor(const Case& c) {
  sim::SimConfig config;
  config.device_capacity = c.scenario.device_capacity;
  config.alloc_granularity = c.modes.alloc_granularity;
  config.free_waits_for_streams = c.modes.free_waits_for_streams;
  config.serial_callback_thread = c.modes.serial_callback_thread;
  config.trap_code = c.modes.trap_code;
  config.alloc_failure_at_call = c.scenario.faults.alloc_failure_at_call;
  config.launch_failure_at_call = c.scenario.faults.launch_failure_at_call;
  config.step_bound = c.modes.step_bound;
  return config;
}

absl::StatusOr<Execution> Execute(const Case& c, const PolicyInfo& policy,
                                  absl::Span<const PropertyInfo* const> monitored,
                                  sim::Strategy* strategy, const ExecuteOptions& options) {
  absl::StatusOr<sim::Simulator*> sim = SimulatorFor(monitored, c.scenario.soft_limit);
  if (!sim.ok()) return sim.status();
  sim::Simulator& simulator = **sim;
  simulator.set_config(SimConfigFor(c));

  std::unique_ptr<sim::SequenceStrategy> own;
  if (strategy == nullptr) {
    own = std::make_unique<sim::SequenceStrategy>(c.schedule);
    strategy = own.get();
  }
  ScheduleRecorder recorder(*strategy);
  if (!recorder.NewExecution()) {
    return absl::InvalidArgumentError("the strategy has no execution to run");
  }
  const sim::ExecutionResult& r =
      simulator.Run(recorder, [&](Device& device, Host& host, RuntimeObserver& observer) {
        RunScenario(c.scenario, device, host, observer, policy);
      });

  Execution out;
  out.violation = r.violation;
  out.schedule = recorder.Schedule();
  out.digest = r.digest;
  out.steps = r.steps;
  out.process_exited = r.process_exited;
  out.exit_status = r.exit_status;
  if (options.coverage != nullptr) {
    options.coverage->Observe(r.trace, [&simulator](std::uint32_t id) {
      return simulator.probes().Name(id);
    });
  }
  if (options.keep_trace) {
    out.trace = r.trace;
    sim::ActorId max_actor = 0;
    for (const sim::Event& e : r.trace) {
      if (e.actor != sim::kNoActor) max_actor = std::max(max_actor, e.actor);
    }
    for (sim::ActorId a = 0; a <= max_actor && !r.trace.empty(); ++a) {
      out.actor_names.emplace_back(simulator.ActorName(a));
    }
  }
  return out;
}

}  // namespace stackcheck::properties
