// Kernels in flight (enqueued and not yet ended or dropped), as the event
// stream describes them, with what the monitors need to name them.
//
// Reused across executions without reallocating; lookups are linear in the
// number of kernels in flight, which the streams keep small.
#ifndef STACKCHECK_SIM_MONITORS_KERNEL_TABLE_H_
#define STACKCHECK_SIM_MONITORS_KERNEL_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "sim/event.h"
#include "sim/monitors/block_ledger.h"

namespace stackcheck::sim {

struct KernelInFlight {
  std::uint32_t id = 0;
  std::uint32_t stream = 0;
  std::uint32_t region = 0;  // the region tag given at launch
  ActorId enqueued_by = kNoActor;
  std::size_t enqueue_index = 0;
  std::uint64_t stacks = 0;      // base of the warp slots
  std::uint64_t per_warp = 0;    // bytes per warp slot
  std::uint32_t slots = 0;       // teams * warps
  bool started = false;
  std::size_t start_index = 0;
  // The live block holding `stacks` when the kernel was enqueued, if any.
  BlockSerial block = kNoBlock;
  // Its variable table (KernelArgs::vars, kKernelVars) and the live block
  // holding it when it was enqueued.
  std::uint64_t vars = 0;
  BlockSerial vars_block = kNoBlock;

  // Bytes the warp slots span; saturates instead of wrapping.
  std::uint64_t stack_bytes() const;
  std::uint64_t stack_end() const;
};

class KernelTable {
 public:
  void Reset() { kernels_.clear(); }

  // Adds the kernel a kKernelEnqueue event describes.
  KernelInFlight& Enqueue(const Event& event, std::size_t index);
  KernelInFlight* Find(std::uint32_t id);
  // Removes the kernel (kKernelEnd / kKernelDropped); unknown ids are ignored.
  void Remove(std::uint32_t id);

  absl::Span<const KernelInFlight> in_flight() const { return kernels_; }
  absl::Span<KernelInFlight> in_flight() { return absl::MakeSpan(kernels_); }

 private:
  std::vector<KernelInFlight> kernels_;
};

// "kernel 3 (region 2)", or "kernel 3 (no region)" for tag 0.
std::string KernelLabel(std::uint32_t id, std::uint32_t region);
inline std::string KernelLabel(const KernelInFlight& k) {
  return KernelLabel(k.id, k.region);
}

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_MONITORS_KERNEL_TABLE_H_
