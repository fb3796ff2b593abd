// What the SimDevice's call files (sim_device*.cc) share: one driver call's
// bracket (SimDevice::Call) and the footprint objects of streams, memory,
// blocks and events. A private header of the simulator library.
#ifndef STACKCHECK_SIM_SIM_DEVICE_CALL_H_
#define STACKCHECK_SIM_SIM_DEVICE_CALL_H_

#include <cstdint>

#include "sim/event_payloads.h"
#include "sim/sim_device.h"

namespace stackcheck::sim {

// Each actor allocates from its own range: an address depends on the actor
// and its own earlier allocations only, so allocations of different actors
// commute (see AllocFootprint).
inline constexpr int kActorRangeBits = 40;

// Function handles: module handle << 4 | which kernel of the image.
inline constexpr std::uint32_t kRegionKernelId = 1;
inline constexpr std::uint32_t kCtorDtorKernelId = 2;

inline std::uint32_t StreamIndex(StreamHandle s) { return static_cast<std::uint32_t>(s); }

inline std::uint32_t MemoryObject() { return ObjectId(ObjectKind::kMemory, 0); }
// An event's two halves: which record it stands for (host records move it)
// and whether records completed (the GPU completes them).
inline std::uint32_t EventPointerObject(std::uint32_t e) {
  return ObjectId(ObjectKind::kEventPointer, e);
}
inline std::uint32_t EventDoneObject(std::uint32_t e) { return ObjectId(ObjectKind::kEvent, e); }

// A block's footprint object: its base address hashed to the 24 bits an
// object index has. Two blocks sharing an index only add a dependency.
inline std::uint32_t BlockObject(DevicePtr base) {
  std::uint64_t h = base * 0x9e3779b97f4a7c15ull;
  return ObjectId(ObjectKind::kBlock, static_cast<std::uint32_t>(h >> 40));
}

// One driver call: its scheduling point on entry, its kDriverCall event on
// return, and the context flags a monitor needs (callback, teardown).
class SimDevice::Call {
 public:
  Call(SimDevice* device, DriverCall api, Footprint step) : device_(device), api_(api) {
    device->scheduler_->Point(device->CallFootprint(api, step));
    const ActorId self = device->scheduler_->current();
    if (device->scheduler_->CurrentIsCallback()) flags_ |= kCallFromCallback;
    if (device->context_ == Context::kDestroying && self != device->destroyer_) {
      flags_ |= kCallDuringTeardown;
    }
  }
  CuResult Return(CuResult result) const {
    device_->scheduler_->Log(EventKind::kDriverCall, payload::Call{api_, flags_, result});
    return result;
  }
  DriverCall api() const { return api_; }
  std::uint32_t flags() const { return flags_; }

 private:
  SimDevice* device_;
  DriverCall api_;
  std::uint32_t flags_ = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_SIM_DEVICE_CALL_H_
