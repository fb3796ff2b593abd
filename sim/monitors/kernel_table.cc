#include "sim/monitors/kernel_table.h"

#include <limits>

#include "absl/strings/str_cat.h"

namespace stackcheck::sim {

std::uint64_t KernelInFlight::stack_bytes() const {
  if (slots != 0 && per_warp > std::numeric_limits<std::uint64_t>::max() / slots) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return per_warp * slots;
}

std::uint64_t KernelInFlight::stack_end() const {
  const std::uint64_t bytes = stack_bytes();
  return stacks > std::numeric_limits<std::uint64_t>::max() - bytes
             ? std::numeric_limits<std::uint64_t>::max()
             : stacks + bytes;
}

KernelInFlight& KernelTable::Enqueue(const Event& e, std::size_t index) {
  KernelInFlight& k = kernels_.emplace_back();
  k.id = e.a;
  k.stream = e.b;
  k.region = e.c;
  k.slots = e.d;
  k.stacks = e.x;
  k.per_warp = e.y;
  k.enqueued_by = e.actor;
  k.enqueue_index = index;
  return k;
}

KernelInFlight* KernelTable::Find(std::uint32_t id) {
  for (KernelInFlight& k : kernels_) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

void KernelTable::Remove(std::uint32_t id) {
  for (std::size_t i = 0; i < kernels_.size(); ++i) {
    if (kernels_[i].id == id) {
      // Order is irrelevant to every user; swap-remove keeps it O(1).
      if (i + 1 != kernels_.size()) kernels_[i] = kernels_.back();
      kernels_.pop_back();
      return;
    }
  }
}

std::string KernelLabel(std::uint32_t id, std::uint32_t region) {
  return region == 0 ? absl::StrCat("kernel ", id, " (no region)")
                     : absl::StrCat("kernel ", id, " (region ", region, ")");
}

}  // namespace stackcheck::sim
