// Kernels in flight (enqueued and not yet ended or dropped), as the event
// stream describes them, with what the monitors need to name them.
//
// Reused across executions without reallocating; lookups are linear in the
// number of kernels in flight, which the streams keep small.
#ifndef STACKCHECK_SIM_KERNEL_TABLE_H_
#define STACKCHECK_SIM_KERNEL_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "sim/block_ledger.h"
#include "sim/event.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {

struct KernelInFlight {
  std::uint32_t id = 0;
  std::uint32_t stream = 0;
  std::uint32_t region = 0;  // the region tag given at launch
  ActorId enqueued_by = kNoActor;
  std::size_t enqueue_index = 0;
  std::uint64_t stacks = 0;    // base of the warp slots
  std::uint64_t per_warp = 0;  // bytes per warp slot
  std::uint32_t slots = 0;     // teams * warps
  bool started = false;
  std::size_t start_index = 0;
  // The live block holding `stacks` when the kernel was enqueued, if any.
  BlockSerial block = kNoBlock;
  // Its variable table (KernelArgs::vars, kKernelVars) and the live block
  // holding it when it was enqueued.
  std::uint64_t vars = 0;
  BlockSerial vars_block = kNoBlock;
  // The program allocation it uses (KernelArgs::data, is_device_ptr) and the
  // live block holding it when it was enqueued.
  std::uint64_t data = 0;
  BlockSerial data_block = kNoBlock;

  // Bytes the warp slots span; saturates instead of wrapping.
  std::uint64_t stack_bytes() const {
    std::uint64_t bytes;
    if (__builtin_mul_overflow(per_warp, std::uint64_t{slots}, &bytes)) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    return bytes;
  }
  std::uint64_t stack_end() const {
    std::uint64_t end;
    if (__builtin_add_overflow(stacks, stack_bytes(), &end)) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    return end;
  }
};

class KernelTable {
 public:
  void Reset() { kernels_.clear(); }

  // Adds the kernel a kKernelEnqueue event describes.
  KernelInFlight& Enqueue(const Event& e, std::size_t index) {
    const auto launch = e.As<payload::KernelLaunch>();
    KernelInFlight& k = kernels_.emplace_back();
    k.id = launch.kernel.kernel;
    k.stream = launch.kernel.stream;
    k.region = launch.kernel.region_tag;
    k.slots = launch.kernel.slots;
    k.stacks = launch.stacks;
    k.per_warp = launch.per_warp;
    k.enqueued_by = e.actor;
    k.enqueue_index = index;
    return k;
  }
  KernelInFlight* Find(std::uint32_t id) {
    for (KernelInFlight& k : kernels_) {
      if (k.id == id) return &k;
    }
    return nullptr;
  }
  const KernelInFlight* Find(std::uint32_t id) const {
    return const_cast<KernelTable*>(this)->Find(id);
  }
  // Removes the kernel (kKernelEnd / kKernelDropped), copying it to `*gone`
  // when given; false for an unknown id (ignored).
  bool Remove(std::uint32_t id, KernelInFlight* gone = nullptr) {
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      if (kernels_[i].id == id) {
        if (gone != nullptr) *gone = kernels_[i];
        // Order is irrelevant to every user; swap-remove keeps it O(1).
        if (i + 1 != kernels_.size()) kernels_[i] = kernels_.back();
        kernels_.pop_back();
        return true;
      }
    }
    return false;
  }

  absl::Span<const KernelInFlight> in_flight() const { return kernels_; }
  absl::Span<KernelInFlight> in_flight() { return absl::MakeSpan(kernels_); }

 private:
  std::vector<KernelInFlight> kernels_;
};

// "kernel 3 (region 2)", or "kernel 3 (no region)" for tag 0.
std::string KernelLabel(std::uint32_t id, std::uint32_t region);
inline std::string KernelLabel(const KernelInFlight& k) { return KernelLabel(k.id, k.region); }

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_KERNEL_TABLE_H_
