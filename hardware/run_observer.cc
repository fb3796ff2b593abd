#include "hardware/run_observer.h"

#include <algorithm>
#include <cstring>

namespace stackcheck::hardware {

void RunObserver::RegionBegin(RegionId region, std::uint64_t stacks_bytes) {
  ++record_.regions_begun;
  absl::MutexLock lock(&mu_);
  running_needs_[region] = stacks_bytes;
  largest_need_ = std::max(largest_need_, stacks_bytes);
}

void RunObserver::RegionEnd(RegionId region) {
  ++record_.regions_ended;
  EventHandle fence;
  {
    absl::MutexLock lock(&mu_);
    running_needs_.erase(region);
    auto it = fences_.find(region);
    if (it == fences_.end()) return;
    fence = it->second;
  }
  // NOT_READY: run() returned while its kernel was still running. A sticky
  // error (the region aborted) says nothing about completion.
  if (device_.EventQuery(fence) == CuResult::kNotReady) {
    ++record_.returned_before_kernel_done;
  }
}

void RunObserver::FatalReported(RegionId attributed, CuResult code, absl::string_view message) {
  if (record_.fatals.fetch_add(1) != 0) return;  // keep the first
  record_.fatal_region = attributed;
  record_.fatal_code = static_cast<int>(code);
  const std::size_t n = std::min(sizeof(record_.fatal_message) - 1, message.size());
  std::memcpy(record_.fatal_message, message.data(), n);
  record_.fatal_message[n] = '\0';
}

void RunObserver::CacheHeld(std::uint64_t held_bytes) {
  if (held_bytes <= soft_limit_) return;
  absl::MutexLock lock(&mu_);
  std::uint64_t bound = soft_limit_;
  if (bound_ == CacheBound::kLargestRegion) bound = std::max(bound, largest_need_);
  for (const auto& [region, need] : running_needs_) bound = std::max(bound, need);
  if (held_bytes <= bound) return;
  ++record_.cache_over_bound;
  if (held_bytes - bound > record_.cache_worst_held - record_.cache_worst_bound) {
    record_.cache_worst_held = held_bytes;
    record_.cache_worst_bound = bound;
  }
}

void RunObserver::KernelLaunched(const KernelArgs& args, StreamHandle stream, CuResult result) {
  if (result != CuResult::kSuccess || args.region_tag == kNoRegion) return;
  EventHandle fence{};
  bool have = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = fences_.find(args.region_tag);
    if (it != fences_.end()) {
      fence = it->second;
      have = true;
    }
  }
  if (!have) {
    if (device_.EventCreate(&fence) != CuResult::kSuccess) return;
    absl::MutexLock lock(&mu_);
    fences_[args.region_tag] = fence;
  }
  device_.EventRecord(fence, stream);
}

}  // namespace stackcheck::hardware
