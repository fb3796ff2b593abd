#include "sim/block_ledger.h"

#include "sim/event_payloads.h"

namespace stackcheck::sim {

void BlockLedger::Reset() {
  live_.clear();
  freed_.clear();
  next_serial_ = 1;
  torn_down_ = false;
}

const FreedBlock* BlockLedger::Apply(const Event& e, std::size_t index) {
  switch (e.kind) {
    case EventKind::kAlloc: {
      const auto block = e.As<payload::Block>();
      live_.push_back(LiveBlock{block.ptr, block.bytes, next_serial_++, e.actor, index});
      return nullptr;
    }
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete: {
      // The driver frees only base pointers it handed out; anything else was
      // refused (SEM-11) and changes nothing.
      const std::uint64_t ptr = e.As<payload::Block>().ptr;
      for (std::size_t i = 0; i < live_.size(); ++i) {
        if (live_[i].ptr == ptr) {
          Remove(i, e.actor, index, /*teardown=*/false);
          return &freed_.back();
        }
      }
      return nullptr;
    }
    case EventKind::kCtxDestroy:
      torn_down_ = true;
      while (!live_.empty()) {
        Remove(live_.size() - 1, e.actor, index, /*teardown=*/true);
      }
      return nullptr;
    default:
      return nullptr;
  }
}

void BlockLedger::Remove(std::size_t pos, ActorId by, std::size_t index, bool teardown) {
  const LiveBlock& b = live_[pos];
  freed_.push_back(FreedBlock{b.ptr, b.bytes, b.serial, by, index, teardown, allocs()});
  if (pos + 1 != live_.size()) live_[pos] = live_.back();
  live_.pop_back();
}

const FreedBlock* BlockLedger::LastFreedContaining(std::uint64_t addr) const {
  for (auto it = freed_.rbegin(); it != freed_.rend(); ++it) {
    if (it->Contains(addr)) return &*it;
  }
  return nullptr;
}

const FreedBlock* BlockLedger::FindFreed(BlockSerial serial) const {
  for (auto it = freed_.rbegin(); it != freed_.rend(); ++it) {
    if (it->serial == serial) return &*it;
  }
  return nullptr;
}

}  // namespace stackcheck::sim
