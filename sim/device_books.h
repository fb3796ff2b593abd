// The device as the event stream describes it -- the memory ledger, the
// kernels in flight, each kernel with the blocks it was enqueued on, and which
// blocks are the runtime's -- kept once for every monitor that reads it
// instead of once per monitor (a monitor keeping its own copy is called at
// every event that changes it).
//
// A block is the runtime's when a thread allocated it inside a region (between
// kRegionBegin and kRegionEnd: inside run()) or when a kernel's stacks were
// placed in it; blocks the user program allocated through device_alloc are
// the program's.
//
// Whoever feeds monitors keeps the books (the engine, BookkeepingView outside
// it): at each event, ApplyBefore runs before the monitors are called and
// ApplyAfter after them. Everything is applied before, so a monitor sees the
// books with its event in them -- except a context teardown, applied after, so
// that the monitors judge the context it destroys (leaked blocks, kernels
// still on them).
#ifndef STACKCHECK_SIM_DEVICE_BOOKS_H_
#define STACKCHECK_SIM_DEVICE_BOOKS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/block_ledger.h"
#include "sim/event.h"
#include "sim/kernel_table.h"
#include "sim/monitor.h"

namespace stackcheck::sim {

// Actor and stream ids are dense small numbers, so tables are indexed by them;
// an id this large is treated as untracked rather than sizing a table by it.
inline constexpr std::uint32_t kMaxIndexedId = 1u << 16;

class DeviceBooks {
 public:
  // The kinds the books read; a feeder may skip both calls for the others.
  static constexpr EventKindMask kReads =
      Kinds({EventKind::kAlloc, EventKind::kFree, EventKind::kAsyncFreeComplete,
             EventKind::kCtxDestroy, EventKind::kKernelEnqueue, EventKind::kKernelVars,
             EventKind::kKernelStart, EventKind::kKernelEnd, EventKind::kKernelDropped,
             EventKind::kRegionBegin, EventKind::kRegionEnd});

  void Reset();
  // `e` is event number `index` of the execution.
  void ApplyBefore(const Event& e, std::size_t index);
  void ApplyAfter(const Event& e, std::size_t index) {
    if (e.kind == EventKind::kCtxDestroy) ledger_.Apply(e, index);
  }

  const BlockLedger& ledger() const { return ledger_; }
  absl::Span<const KernelInFlight> in_flight() const { return kernels_.in_flight(); }
  const KernelInFlight* FindKernel(std::uint32_t id) const { return kernels_.Find(id); }
  // The block the last event removed (a kFree or kAsyncFreeComplete of a
  // live block), or nullptr.
  const FreedBlock* just_freed() const { return just_freed_; }
  // The kernel the last event removed (a kKernelEnd or kKernelDropped of a
  // kernel in flight), as it was in flight, or nullptr.
  const KernelInFlight* just_ended() const { return kernel_ended_ ? &ended_ : nullptr; }
  // Whether the block with this serial, live or freed, is the runtime's.
  bool IsRuntimeBlock(BlockSerial serial) const {
    return std::find(runtime_blocks_.begin(), runtime_blocks_.end(), serial) !=
           runtime_blocks_.end();
  }

 private:
  BlockSerial BlockHolding(std::uint64_t addr) const {
    const LiveBlock* b = ledger_.Containing(addr);
    return b == nullptr ? kNoBlock : b->serial;
  }

  void MarkRuntimeBlock(BlockSerial serial) {
    if (serial != kNoBlock && !IsRuntimeBlock(serial)) runtime_blocks_.push_back(serial);
  }
  bool InRegion(ActorId actor) const {
    return actor < region_of_actor_.size() && region_of_actor_[actor] != 0;
  }

  BlockLedger ledger_;
  KernelTable kernels_;
  const FreedBlock* just_freed_ = nullptr;
  KernelInFlight ended_;  // the kernel the last event removed, if kernel_ended_
  bool kernel_ended_ = false;
  std::vector<BlockSerial> runtime_blocks_;
  // The open region of each actor (0: none), indexed by ActorId.
  std::vector<std::uint32_t> region_of_actor_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_DEVICE_BOOKS_H_
