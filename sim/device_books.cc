#include "sim/device_books.h"

#include <algorithm>

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
      region_of_actor_[e.actor] = e.kind == EventKind::kRegionBegin ? e.c : 0;
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
    case EventKind::kKernelVars:
      if (KernelInFlight* k = kernels_.Find(e.a)) {
        k->vars = e.x;
        k->vars_block = e.x != 0 ? BlockHolding(e.x) : kNoBlock;
        k->data = e.y;
        k->data_block = e.y != 0 ? BlockHolding(e.y) : kNoBlock;
      }
      return;
    case EventKind::kKernelStart:
      if (KernelInFlight* k = kernels_.Find(e.a)) {
        k->started = true;
        k->start_index = index;
      }
      return;
    case EventKind::kKernelEnd:
    case EventKind::kKernelDropped:
      kernel_ended_ = kernels_.Remove(e.a, &ended_);
      return;
    default:  // kCtxDestroy is ApplyAfter's
      return;
  }
}

}  // namespace stackcheck::sim
