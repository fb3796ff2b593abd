#include "core/policies/stack_block.h"

namespace stackcheck {

CuResult StackBlock::Allocate(Device& device, std::uint64_t bytes) {
  DevicePtr ptr = 0;
  CuResult r = device.MemAlloc(&ptr, bytes);
  if (r == CuResult::kSuccess) Set(ptr, bytes);
  return r;
}

CuResult StackBlock::Free(Device& device) {
  if (ptr_ == 0) return CuResult::kSuccess;
  CuResult r = device.MemFree(ptr_);
  Set(0, 0);
  return r;
}

void StackBlock::Set(DevicePtr ptr, std::uint64_t size) {
  ptr_ = ptr;
  size_ = size;
  held_.store(size, std::memory_order_relaxed);
}

}  // namespace stackcheck
