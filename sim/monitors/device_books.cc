#include "sim/monitors/device_books.h"

namespace stackcheck::sim {

void DeviceBooks::Reset() {
  ledger_.Reset();
  kernels_.Reset();
  just_freed_ = nullptr;
}

void DeviceBooks::ApplyBefore(const Event& e, std::size_t index) {
  just_freed_ = nullptr;
  switch (e.kind) {
    case EventKind::kAlloc:
      ledger_.Apply(e, index);
      return;
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete:
      just_freed_ = ledger_.Apply(e, index);
      return;
    case EventKind::kKernelEnqueue: {
      KernelInFlight& k = kernels_.Enqueue(e, index);
      k.block = BlockHolding(k.stacks);
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
      kernels_.Remove(e.a);
      return;
    default:  // kCtxDestroy is ApplyAfter's
      return;
  }
}

}  // namespace stackcheck::sim
