// The scheduler's view of the device: which GPU steps can run, whether a
// device wait holds, and who a device wait waits for. SimDevice implements
// it; the engine knows nothing else of the GPU.
#ifndef STACKCHECK_SIM_GPU_MODEL_H_
#define STACKCHECK_SIM_GPU_MODEL_H_

#include <cstdint>
#include <vector>

#include "sim/actor.h"
#include "sim/footprint.h"

namespace stackcheck::sim {

// The device model as the scheduler sees it (implemented by SimDevice).
class GpuModel {
 public:
  virtual ~GpuModel() = default;
  // Can the GPU make progress on `stream` now? If so, *next is the step's
  // footprint.
  virtual bool StreamStepReady(std::uint32_t stream, Footprint* next) = 0;
  virtual void StreamStep(std::uint32_t stream) = 0;
  // Device wait reasons (kStreamIdle, kAllStreamsIdle[OrFault], kEvent).
  virtual bool WaitSatisfied(const WaitReason& reason) = 0;
  // Has the serial callback thread something to run? *next: its footprint.
  virtual bool CallbackWorkReady(Footprint* next) = 0;
  virtual bool sticky_error() const = 0;
  // Device memory: what a cuMemAlloc of `bytes` takes (rounded to the
  // allocation granularity), and what is free now.
  virtual std::uint64_t ChargedBytes(std::uint64_t bytes) const { return bytes; }
  virtual std::uint64_t FreeBytes() const { return 0; }
  // Wait-for edges leaving a fiber blocked in a device wait, or a GPU actor
  // that cannot move.
  virtual void DeviceWaitEdges(ActorId waiter, const WaitReason& reason,
                               std::vector<WaitEdge>* out) = 0;
  virtual void StreamWaitEdges(std::uint32_t stream, std::vector<WaitEdge>* out) = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_GPU_MODEL_H_
