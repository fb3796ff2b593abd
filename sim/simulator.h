// The simulator's one entry point: run a host program against the fake GPU
// under a scheduling strategy, with monitors watching the event stream.
//
//   Simulator sim(config, std::move(monitors));
//   while (strategy.NewExecution()) {
//     const ExecutionResult& r = sim.Run(strategy,
//         [&](Device& device, Host& host, RuntimeObserver& observer) {
//           RunScenario(scenario, device, host, observer, policy);
//         });
//     if (r.violation) ...
//   }
//
// `main_thread` runs as the simulated process's main thread (T0); returning
// from it is exit(0), which runs the Host::AtExit handlers. A Simulator is
// reusable for any number of executions without growing: the result refers to
// buffers the next Run overwrites.
#ifndef STACKCHECK_SIM_SIMULATOR_H_
#define STACKCHECK_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "core/device.h"
#include "core/host.h"
#include "core/observer.h"
#include "sim/driver_api.h"
#include "sim/event.h"
#include "sim/monitor.h"
#include "sim/probe_registry.h"
#include "sim/sim_config.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

class Scheduler;
class SimDevice;
class SimHost;

struct ExecutionResult {
  // The first violation: a monitor's, "no-deadlock" (with the wait-for cycle),
  // "progress" (step bound), "invalid-schedule" or "no-exception".
  std::optional<Violation> violation;
  // Violations the pass (set_violation_pass) let the execution go past, one
  // per fingerprint, in order.
  std::vector<Violation> passed;
  // Every event, in order; with a violation, up to the one that broke it.
  std::vector<Event> trace;
  // Every strategy answer, in order: the schedule. Points with a single
  // runnable actor are not asked and not recorded.
  std::vector<std::uint64_t> choices;
  std::uint64_t digest = 0;  // a stable hash of the trace's fields
  std::uint64_t steps = 0;   // scheduling points, including unasked ones
  bool process_exited = false;
  int exit_status = 0;
  // The allocations outgrew the device's capacity, so they did not all
  // commute as the footprints said (SimDevice::AllocFootprint): a reduction
  // (sleep sets, DPOR) that met such an execution may have missed schedules.
  bool capacity_premise_broken = false;
};

using MainThread = absl::FunctionRef<void(Device&, Host&, RuntimeObserver&)>;

class Simulator {
 public:
  explicit Simulator(SimConfig config = SimConfig{},
                     std::vector<std::unique_ptr<Monitor>> monitors = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Runs one execution; the strategy's NewExecution has been called already.
  const ExecutionResult& Run(Strategy& strategy, MainThread main_thread);

  // The execution Run is in, as far as it went (trace, choices, digest,
  // steps; no verdict): for a process that dies inside it, whose driver
  // still reports what led there (sim/libcuda: a program that crashed).
  ExecutionResult SoFar() const;

  // Takes effect from the next Run.
  void set_config(const SimConfig& config);
  // A violation `pass` accepts does not stop the execution; it is recorded in
  // ExecutionResult::passed. Null (the default): the first violation stops.
  void set_violation_pass(std::function<bool(const Violation&)> pass);
  const SimConfig& config() const { return config_; }

  // Names of the last execution's actors: "T0", "T1", "callback",
  // "callback0" (concurrent mode), "gpu:s0".
  absl::string_view ActorName(ActorId actor) const;
  // The engine's view, as monitors get it (sticky error, names).
  const SimView& view() const;
  // Probe names of kProbe events (payload::Probe), stable across executions.
  const ProbeRegistry& probes() const;
  // Mutex names of kMutex* events (payload::Mutex), for the last execution.
  absl::string_view MutexName(std::uint32_t mutex) const;
  // Fiber stacks ever mapped (bounded by the most fibers alive at once).
  std::size_t stacks_mapped() const;

 private:
  SimConfig config_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<SimDevice> device_;
  std::unique_ptr<SimHost> host_;
  ExecutionResult result_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_SIMULATOR_H_
