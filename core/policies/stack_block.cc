#include "core/policies/stack_block.h"

namespace stackcheck {

CuResult StackBlock::Allocate(Device& device, std::uint64_t bytes) {
  DevicePtr ptr = 0;
  CuResult r = device.MemAlloc(&ptr, bytes);
  if (r == CuResult::kSuccess) Set(ptr, bytes);
  return r;
}

CuResult StackBlock::Free(Device& device) {
  const DevicePtr ptr = extent_.Read().ptr;
  if (ptr == 0) return CuResult::kSuccess;
  CuResult r = device.MemFree(ptr);
  Set(0, 0);
  return r;
}

CuResult StackBlock::FreeAtClose(Device& device) {
  const DevicePtr ptr = extent_.Read().ptr;
  return ptr == 0 ? CuResult::kSuccess : device.MemFree(ptr);
}

void StackBlock::Set(DevicePtr ptr, std::uint64_t size) {
  extent_.Write() = Extent{ptr, size};
  held_.store(size, std::memory_order_relaxed);
}

}  // namespace stackcheck
