// The cached soft-stack block: one device allocation that a region's warps
// carve into per-warp slots. Not synchronised by itself: the owning policy
// guards it with its own lock (or, in V0, does not share it at all). Its
// pointer and size are one piece of shared state (core/shared.h) when the
// block is shared; only the size snapshot is atomic, so the runtime can report
// CacheHeld from any thread (held_bytes, with or without the guard).
#ifndef STACKCHECK_CORE_POLICIES_STACK_BLOCK_H_
#define STACKCHECK_CORE_POLICIES_STACK_BLOCK_H_

#include <atomic>
#include <cstdint>

#include "core/device.h"
#include "core/host.h"
#include "core/shared.h"

namespace stackcheck {

class StackBlock {
 public:
  // One thread's own block.
  StackBlock() = default;
  // A block threads share, meant to be touched with `guard` held.
  StackBlock(Host& host, const Mutex* guard) : extent_(host, "stacks block", guard) {}

  DevicePtr ptr() const { return extent_.Read().ptr; }
  std::uint64_t size() const { return extent_.Read().size; }
  bool empty() const { return extent_.Read().ptr == 0; }
  // The block exists and is large enough for `need` bytes.
  bool Fits(std::uint64_t need) const {
    const Extent& e = extent_.Read();
    return e.ptr != 0 && e.size >= need;
  }
  std::uint64_t held_bytes() const {
    extent_.Snapshot();
    return held_.load(std::memory_order_relaxed);
  }

  // cuMemAlloc of `bytes` into an empty block; on failure the block stays
  // empty.
  CuResult Allocate(Device& device, std::uint64_t bytes);
  // cuMemFree of the block, if any. The block is forgotten whatever the
  // result: after a failure (a sticky error) it can never be freed again and
  // the context's destruction reclaims it.
  CuResult Free(Device& device);
  // cuMemFree of the block at device close, leaving its pointer and size as
  // they were: GCC's nvptx_close_device frees the block and then the whole
  // device record (free (ptx_dev)), so a thread still inside run, past the
  // destroyed stacks lock, reads the stale pointer, not an empty block.
  CuResult FreeAtClose(Device& device);

 private:
  struct Extent {
    DevicePtr ptr = 0;
    std::uint64_t size = 0;
  };
  void Set(DevicePtr ptr, std::uint64_t size);

  Shared<Extent> extent_;
  std::atomic<std::uint64_t> held_{0};
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_STACK_BLOCK_H_
