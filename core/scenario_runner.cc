#include "core/scenario_runner.h"

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/runtime.h"

namespace stackcheck {
namespace {

// What a slot holds: omp_target_alloc memory, or a variable's device copy
// made by target enter data.
struct Slot {
  DevicePtr ptr = 0;
  bool mapped = false;
};

void Release(const Slot& slot, Runtime& runtime) {
  if (slot.mapped) {
    runtime.ExitData(slot.ptr);
  } else {
    runtime.DeviceFree(slot.ptr);
  }
}

void RunThreadProgram(const ThreadProgram& program, Runtime& runtime) {
  // Ordered, so leftovers are released in slot order: a hash map's iteration
  // order varies between processes and would make replays diverge.
  std::map<std::uint32_t, Slot> slots;
  for (const HostOp& op : program.ops) {
    switch (op.kind) {
      case HostOp::Kind::kRun:
        runtime.Run(op.region);
        break;
      case HostOp::Kind::kRunDevicePtr: {
        auto it = slots.find(op.slot);
        const bool usable = it != slots.end() && !it->second.mapped;
        runtime.Run(op.region, usable ? it->second.ptr : 0);
        break;
      }
      case HostOp::Kind::kDeviceAlloc:
      case HostOp::Kind::kEnterData: {
        auto it = slots.find(op.slot);
        if (it != slots.end()) {
          const Slot old = it->second;
          slots.erase(it);
          Release(old, runtime);
        }
        Slot slot;
        slot.mapped = op.kind == HostOp::Kind::kEnterData;
        slot.ptr = slot.mapped ? runtime.EnterData(op.bytes) : runtime.DeviceAlloc(op.bytes);
        if (slot.ptr != 0) slots[op.slot] = slot;
        break;
      }
      case HostOp::Kind::kDeviceFree:
      case HostOp::Kind::kExitData: {
        auto it = slots.find(op.slot);
        if (it != slots.end()) {
          const Slot old = it->second;
          slots.erase(it);
          Release(old, runtime);
        }
        break;
      }
      case HostOp::Kind::kUpdate: {
        auto it = slots.find(op.slot);
        if (it != slots.end() && it->second.mapped) runtime.Update(it->second.ptr);
        break;
      }
    }
  }
  for (const auto& [index, slot] : slots) Release(slot, runtime);
}

// Everything main does before its exit; what it owns is gone when it returns.
void OpenRunAndJoin(const Scenario& scenario, Device& device, Host& host, RuntimeObserver& observer,
                    const PolicyInfo& policy) {
  RuntimeOptions options;
  options.soft_limit = scenario.soft_limit;
  options.shipped_target = scenario.shipped_target;
  // Owned by the main thread; every program thread holds a strong reference
  // on its own stack while it runs, and the exit handler one while it closes
  // the device. In the simulator an ended process's fibers unwind one by one:
  // the runtime must outlive whichever of them still runs its code, and must
  // not outlive the execution.
  auto runtime = std::make_shared<Runtime>(device, host, observer, policy, options);
  if (scenario.close_at_end) {
    // The exit after main's work closes the device through the runtime:
    // like libgomp's state (a global), it outlives main's locals, held by
    // this handler. Registered first, it runs last.
    host.AtExit([keep = runtime] {});
  }
  runtime->OpenDevice();
  runtime->LoadImage(scenario.faults.device_constructors, scenario.faults.device_destructors);

  std::vector<ThreadId> threads;
  threads.reserve(scenario.threads.size());
  for (std::size_t i = 0; i < scenario.threads.size(); ++i) {
    const ThreadProgram* program = &scenario.threads[i];
    std::weak_ptr<Runtime> weak = runtime;
    threads.push_back(host.Spawn(absl::StrCat("host-", i), [program, weak] {
      // The main thread is in Join, so the runtime is alive here.
      if (std::shared_ptr<Runtime> strong = weak.lock()) {
        RunThreadProgram(*program, *strong);
      }
    }));
  }
  for (ThreadId thread : threads) host.Join(thread);
}

}  // namespace

void RunScenario(const Scenario& scenario, Device& device, Host& host, RuntimeObserver& observer,
                 const PolicyInfo& policy) {
  OpenRunAndJoin(scenario, device, host, observer, policy);
  // This frame owns nothing: the simulator need not unwind it after the exit.
  if (scenario.close_at_end) host.ExitOwningNothing(0);
}

}  // namespace stackcheck
