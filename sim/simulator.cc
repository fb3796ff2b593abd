#include "sim/simulator.h"

#include <utility>

#include "sim/event_payloads.h"
#include "sim/scheduler.h"
#include "sim/sim_device.h"
#include "sim/sim_host.h"

namespace stackcheck::sim {

Simulator::Simulator(SimConfig config, std::vector<std::unique_ptr<Monitor>> monitors)
    : config_(config),
      scheduler_(std::make_unique<Scheduler>()),
      device_(std::make_unique<SimDevice>(scheduler_.get())),
      host_(std::make_unique<SimHost>(scheduler_.get())) {
  scheduler_->set_gpu(device_.get());
  scheduler_->set_monitors(std::move(monitors));
  set_config(config);
}

Simulator::~Simulator() = default;

void Simulator::set_config(const SimConfig& config) {
  config_ = config;
  scheduler_->set_step_bound(config.modes.step_bound);
  device_->set_config(config);
  host_->set_exit_ends_at_rest(!config.exit_cuts_every_step);
}

const ExecutionResult& Simulator::Run(Strategy& strategy, MainThread main_thread) {
  scheduler_->BeginExecution(&strategy);
  host_->BeginExecution();
  // Actor ids: T0 first, then the device's (callback thread, gpu:s0).
  SimDevice& device = *device_;
  SimHost& host = *host_;
  // Three references: too big for std::function's inline buffer, so the body
  // lives on the heap and stays put while it runs. An inline one would move
  // with actors_ when a spawn grows that vector mid-call (ThreadSanitizer
  // reports the read of the moved-from capture).
  const ActorId main = scheduler_->SpawnFiber(ActorKind::kHostThread, [&] {
    main_thread(device, host, host);
    host.ExitProcess(0, Scheduler::Stacks::kMainReturned);  // returning from main is exit(0)
  });
  scheduler_->LogAs(main, EventKind::kThreadStart, payload::ThreadStart{kNoActor});
  device_->BeginExecution();
  scheduler_->RunExecution();
  // Handlers the process never ran (it ended by a violation or a deadlock)
  // may hold the program's state: destroyed now, while everything they
  // refer to lives, not at the next execution or with the Simulator.
  host.ForgetExitHandlers();

  result_.violation = scheduler_->violation();
  result_.passed.swap(scheduler_->passed());
  scheduler_->SwapResults(&result_.trace, &result_.choices);
  result_.digest = scheduler_->digest();
  result_.steps = scheduler_->steps();
  result_.process_exited = scheduler_->process_exited();
  result_.exit_status = scheduler_->exit_status();
  result_.capacity_premise_broken = device_->capacity_premise_broken();
  return result_;
}

ExecutionResult Simulator::SoFar() const {
  ExecutionResult so_far;
  so_far.trace = scheduler_->trace();
  so_far.choices = scheduler_->choices();
  so_far.digest = scheduler_->digest();
  so_far.steps = scheduler_->steps();
  return so_far;
}

absl::string_view Simulator::ActorName(ActorId actor) const { return scheduler_->ActorName(actor); }

void Simulator::set_violation_pass(std::function<bool(const Violation&)> pass) {
  scheduler_->set_violation_pass(std::move(pass));
}

const SimView& Simulator::view() const { return *scheduler_; }

const ProbeRegistry& Simulator::probes() const { return host_->probes(); }

absl::string_view Simulator::MutexName(std::uint32_t mutex) const {
  return scheduler_->MutexName(mutex);
}

std::size_t Simulator::stacks_mapped() const { return scheduler_->stacks_mapped(); }

}  // namespace stackcheck::sim
