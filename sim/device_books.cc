#include "sim/device_books.h"

#include <algorithm>

#include "sim/event_payloads.h"
namespace stackcheck::sim {

void DeviceBooks::Reset() {
  ledger_.Reset();
  kernels_.Reset();
  just_freed_ = nullptr;
  kernel_ended_ = false;
  runtime_blocks_.clear();
  std::fill(region_of_actor_.begin(), region_of_actor_.end(), 0);
}

void DeviceBooks::ApplyBefore(const Event& e, std::size_t index) {
  just_freed_ = nullptr;
  kernel_ended_ = false;
  switch (e.kind) {
    case EventKind::kRegionBegin:
    case EventKind::kRegionEnd:
      if (e.actor >= kMaxIndexedId) return;  // hand-written streams only
      if (e.actor >= region_of_actor_.size()) region_of_actor_.resize(e.actor + 1, 0);
      region_of_actor_[e.actor] =
          e.kind == EventKind::kRegionBegin ? e.As<payload::Region>().region : 0;
      return;
    case EventKind::kAlloc:
      ledger_.Apply(e, index);
      if (InRegion(e.actor)) MarkRuntimeBlock(ledger_.live().back().serial);  // this one
      return;
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete:
      just_freed_ = ledger_.Apply(e, index);
      return;
    case EventKind::kKernelEnqueue: {
      KernelInFlight& k = kernels_.Enqueue(e, index);
      k.block = BlockHolding(k.stacks);
      MarkRuntimeBlock(k.block);  // the block of its stacks
      return;
    }
    case EventKind::kKernelVars: {
      const auto vars = e.As<payload::KernelVars>();
      if (KernelInFlight* k = kernels_.Find(vars.kernel)) {
        k->vars = vars.table;
        k->vars_block = vars.table != 0 ? BlockHolding(vars.table) : kNoBlock;
        k->data = vars.data;
        k->data_block = vars.data != 0 ? BlockHolding(vars.data) : kNoBlock;
      }
      return;
    }
    case EventKind::kKernelStart:
      if (KernelInFlight* k = kernels_.Find(e.As<payload::Kernel>().kernel)) {
        k->started = true;
        k->start_index = index;
      }
      return;
    case EventKind::kKernelEnd:
    case EventKind::kKernelDropped:
      kernel_ended_ = kernels_.Remove(e.As<payload::Kernel>().kernel, &ended_);
      return;
    default:  // kCtxDestroy is ApplyAfter's
      return;
  }
}

}  // namespace stackcheck::sim
