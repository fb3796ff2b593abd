// The cached soft-stack block: one device allocation that a region's warps
// carve into per-warp slots. Not synchronised by itself: the owning policy
// guards it with its own lock (or, in V0, does not share it at all). Only the
// size snapshot is atomic, so the runtime can report CacheHeld from any thread.
#ifndef STACKCHECK_CORE_POLICIES_STACK_BLOCK_H_
#define STACKCHECK_CORE_POLICIES_STACK_BLOCK_H_

#include <atomic>
#include <cstdint>

#include "core/device.h"

namespace stackcheck {

class StackBlock {
 public:
  DevicePtr ptr() const { return ptr_; }
  std::uint64_t size() const { return size_; }
  bool empty() const { return ptr_ == 0; }
  // The block exists and is large enough for `need` bytes.
  bool Fits(std::uint64_t need) const { return ptr_ != 0 && size_ >= need; }
  std::uint64_t held_bytes() const {
    return held_.load(std::memory_order_relaxed);
  }

  // cuMemAlloc of `bytes` into an empty block; on failure the block stays
  // empty.
  CuResult Allocate(Device& device, std::uint64_t bytes);
  // cuMemFree of the block, if any. The block is forgotten whatever the
  // result: after a failure (a sticky error) it can never be freed again and
  // the context's destruction reclaims it.
  CuResult Free(Device& device);

 private:
  void Set(DevicePtr ptr, std::uint64_t size);

  DevicePtr ptr_ = 0;
  std::uint64_t size_ = 0;
  std::atomic<std::uint64_t> held_{0};
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_STACK_BLOCK_H_
