// The SimDevice's memory calls: the ledger's allocations and frees (SEM-10,
// SEM-11), copies, and the stream-ordered allocator.

#include "sim/event_payloads.h"
#include "sim/sim_device_call.h"

namespace stackcheck::sim {

// --- memory --------------------------------------------------------------------

std::uint64_t SimDevice::Charge(std::uint64_t bytes) const {
  const std::uint64_t g = config_.modes.alloc_granularity > 1 ? config_.modes.alloc_granularity : 1;
  return (bytes + g - 1) / g * g;
}

CuResult SimDevice::Allocate(DevicePtr* ptr, std::uint64_t bytes, bool async) {
  if (bytes == 0) {
    scheduler_->Log(EventKind::kAllocFailed, payload::AllocFailed{bytes, CuResult::kInvalidValue});
    return CuResult::kInvalidValue;
  }
  // std::exchange: a failure asked for (FailNextAllocation) is used once.
  if (!async && (++alloc_calls_ == config_.alloc_failure_at_call ||
                 std::exchange(fail_next_allocation_, false))) {
    scheduler_->Log(EventKind::kAllocFailed, payload::AllocFailed{bytes, CuResult::kOutOfMemory});
    return CuResult::kOutOfMemory;
  }
  const std::uint64_t charged = Charge(bytes);
  // Saturating: a size that overflowed the rounding breaks the premise too.
  attempted_ever_ =
      charged < bytes || charged > ~attempted_ever_ ? ~std::uint64_t{0} : attempted_ever_ + charged;
  if (charged < bytes || charged > config_.device_capacity - live_bytes_) {
    scheduler_->Log(EventKind::kAllocFailed, payload::AllocFailed{bytes, CuResult::kOutOfMemory});
    return CuResult::kOutOfMemory;
  }
  const ActorId actor = scheduler_->current();
  if (actor >= next_by_actor_.size()) next_by_actor_.resize(actor + 1, 0);
  const DevicePtr p =
      config_.first_device_address + (DevicePtr{actor} << kActorRangeBits) + next_by_actor_[actor];
  next_by_actor_[actor] += charged;
  blocks_[p] = Block{bytes, charged, async, false};
  live_bytes_ += charged;
  *ptr = p;
  scheduler_->Log(EventKind::kAlloc, payload::Block{p, bytes});
  return CuResult::kSuccess;
}

void SimDevice::ReleaseBlock(DevicePtr ptr) {
  auto it = blocks_.find(ptr);
  live_bytes_ -= it->second.charged;
  blocks_.erase(it);
}

CuResult SimDevice::MemAlloc(DevicePtr* ptr, std::uint64_t bytes) {
  Call call(this, DriverCall::kMemAlloc, AllocFootprint());
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (ptr == nullptr) return call.Return(CuResult::kInvalidValue);
  // SEM-10: never waits for kernels or callbacks.
  return call.Return(Allocate(ptr, bytes, /*async=*/false));
}

CuResult SimDevice::MemFree(DevicePtr ptr) {
  const Footprint step = FreeFootprint(ptr);
  Call call(this, DriverCall::kMemFree, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (ptr == 0) return call.Return(CuResult::kSuccess);
  if (stale_.contains(ptr)) return call.Return(CuResult::kContextIsDestroyed);
  auto it = blocks_.find(ptr);
  // Double free and interior pointers are plain invalid values (SEM-11).
  if (it == blocks_.end() || it->second.free_pending) {
    return call.Return(CuResult::kInvalidValue);
  }
  if (!it->second.async && config_.modes.free_waits_for_streams) {
    // SEM-11 (observed): every stream idle, a running callback included.
    WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdle, 0, call.api()}, step);
    if (sticky_ != CuResult::kSuccess) return call.Return(sticky_);
    it = blocks_.find(ptr);  // another thread may have freed it meanwhile
    if (it == blocks_.end() || it->second.free_pending) {
      return call.Return(CuResult::kInvalidValue);
    }
  }
  const std::uint64_t bytes = it->second.bytes;
  ReleaseBlock(ptr);
  scheduler_->Log(EventKind::kFree, payload::Block{ptr, bytes});
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::MemGetInfo(MemInfo* info) {
  // Reads what every actor's allocations changed (AllocFootprint).
  Call call(this, DriverCall::kMemGetInfo,
            AllocationsCommute() ? DeviceWideFootprint() : Touches(MemoryObject(), false));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (info == nullptr) return call.Return(CuResult::kInvalidValue);
  info->total_bytes = config_.device_capacity;
  info->free_bytes = config_.device_capacity - live_bytes_;
  return call.Return(CuResult::kSuccess);
}

// A synchronous copy is legacy-stream work done by the calling thread: it
// waits for every stream to drain (what it reads, like cuCtxSynchronize),
// then reads the allocator's books to find its block, which every
// allocation and free writes. A kernel that poisons the context while the
// copy waits ends the wait at once with CUDA_ERROR_UNKNOWN, callbacks still
// pending (SEM-14, measured on the H200).
CuResult SimDevice::Copy(DriverCall api, DevicePtr device_ptr, std::uint64_t bytes) {
  // A copy that a trap wakes ends differently (999) from one that starts
  // after it (719): kWokenByTrapDiffers keeps that race with the trapping
  // step, which other waits for the stream need not explore.
  const Footprint step = Blocking(Touches(StreamEnqueuedObject(0), false, StreamProgressObject(0),
                                          false, MemoryObject(), false),
                                  kWaitsForIdle | kWokenByTrapDiffers);
  Call call(this, api, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdleOrFault, 0, call.api()}, step);
  if (sticky_ != CuResult::kSuccess) return call.Return(CuResult::kUnknown);
  if (stale_.contains(device_ptr)) return call.Return(CuResult::kContextIsDestroyed);
  bool inside = false;
  for (const auto& [base, b] : blocks_) {
    if (device_ptr >= base && bytes <= b.bytes && device_ptr - base <= b.bytes - bytes) {
      inside = !b.free_pending;
      break;
    }
  }
  // A copy of nothing succeeds and copies nothing, wherever it points
  // (measured on the H100, hardware/zero_copy_probe.c): libgomp makes one
  // for a zero-length array section.
  if (bytes == 0) return call.Return(CuResult::kSuccess);
  if (!inside) return call.Return(CuResult::kInvalidValue);
  scheduler_->Log(EventKind::kMemcpy,
                  payload::Memcpy{api == DriverCall::kMemcpyHtoD, device_ptr, bytes});
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::MemcpyHtoD(DevicePtr dst, const void* src, std::uint64_t bytes) {
  if (src == nullptr && bytes != 0) return CuResult::kInvalidValue;
  return Copy(DriverCall::kMemcpyHtoD, dst, bytes);
}

CuResult SimDevice::MemcpyDtoH(void* dst, DevicePtr src, std::uint64_t bytes) {
  if (dst == nullptr && bytes != 0) return CuResult::kInvalidValue;
  return Copy(DriverCall::kMemcpyDtoH, src, bytes);
}

CuResult SimDevice::MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes, StreamHandle stream) {
  // Stream-ordered allocation touches a stream, the allocator and (at the
  // free's completion) a block: more than a footprint holds, so global.
  Call call(this, DriverCall::kMemAllocAsync, GlobalFootprint());
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (ptr == nullptr) return call.Return(CuResult::kInvalidValue);
  // Addresses are never reused, so the block is usable by any later work.
  return call.Return(Allocate(ptr, bytes, /*async=*/true));
}

CuResult SimDevice::MemFreeAsync(DevicePtr ptr, StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverCall::kMemFreeAsync, GlobalFootprint());
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (stale_.contains(ptr)) return call.Return(CuResult::kContextIsDestroyed);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || it->second.free_pending) {
    return call.Return(CuResult::kInvalidValue);
  }
  it->second.free_pending = true;
  Enqueue(s, OpKind::kAsyncFree).ptr = ptr;
  return call.Return(CuResult::kSuccess);
}

}  // namespace stackcheck::sim
