// The device-memory ledger as the event stream describes it: which blocks are
// live, and who freed the ones that are gone. Several monitors and the
// coverage counter keep one; it is rebuilt from the events of each execution.
//
// Containers are reused across Reset(), so steady-state bookkeeping does not
// allocate; lookups are linear in the (small) number of live blocks.
#ifndef STACKCHECK_SIM_BLOCK_LEDGER_H_
#define STACKCHECK_SIM_BLOCK_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "sim/event.h"

namespace stackcheck::sim {

// Names an allocation; never reused within an execution. 0 means "none".
using BlockSerial = std::uint32_t;
inline constexpr BlockSerial kNoBlock = 0;

struct LiveBlock {
  std::uint64_t ptr = 0;
  std::uint64_t bytes = 0;
  BlockSerial serial = kNoBlock;
  ActorId allocated_by = kNoActor;
  std::size_t alloc_index = 0;  // event index of the kAlloc

  std::uint64_t end() const { return ptr + bytes; }
  bool Contains(std::uint64_t addr) const { return addr >= ptr && addr < end(); }
};

struct FreedBlock {
  std::uint64_t ptr = 0;
  std::uint64_t bytes = 0;
  BlockSerial serial = kNoBlock;
  ActorId freed_by = kNoActor;
  std::size_t free_index = 0;       // event index of the free or the teardown
  bool by_teardown = false;         // invalidated by kCtxDestroy, not freed
  std::uint32_t allocs_before = 0;  // allocations made before the free

  bool Contains(std::uint64_t addr) const { return addr >= ptr && addr < ptr + bytes; }
};

class BlockLedger {
 public:
  void Reset();

  // Applies kAlloc, kFree, kAsyncFreeComplete and kCtxDestroy; ignores other
  // kinds. Returns the block a free or teardown removed (for kFree and
  // kAsyncFreeComplete), or nullptr.
  const FreedBlock* Apply(const Event& event, std::size_t index);

  // The live block containing `addr`, or nullptr.
  const LiveBlock* Containing(std::uint64_t addr) const {
    for (const LiveBlock& b : live_) {
      if (b.Contains(addr)) return &b;
    }
    return nullptr;
  }
  const LiveBlock* Find(BlockSerial serial) const {
    if (serial == kNoBlock) return nullptr;
    for (const LiveBlock& b : live_) {
      if (b.serial == serial) return &b;
    }
    return nullptr;
  }
  bool IsLive(BlockSerial serial) const { return Find(serial) != nullptr; }
  // The most recent free (or teardown) of a block containing `addr`.
  const FreedBlock* LastFreedContaining(std::uint64_t addr) const;
  const FreedBlock* FindFreed(BlockSerial serial) const;

  absl::Span<const LiveBlock> live() const { return live_; }
  // kAlloc events seen so far in this execution.
  std::uint32_t allocs() const { return next_serial_ - 1; }
  bool torn_down() const { return torn_down_; }

 private:
  void Remove(std::size_t live_pos, ActorId by, std::size_t index, bool teardown);

  std::vector<LiveBlock> live_;
  std::vector<FreedBlock> freed_;  // in free order
  BlockSerial next_serial_ = 1;
  bool torn_down_ = false;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_BLOCK_LEDGER_H_
