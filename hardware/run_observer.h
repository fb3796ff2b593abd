// The RuntimeObserver of a hardware run: writes what the runtime reports into
// the shared RunRecord, and checks sync-completion by recording an event
// behind each region's launch and querying it when run() returns.
#ifndef STACKCHECK_HARDWARE_RUN_OBSERVER_H_
#define STACKCHECK_HARDWARE_RUN_OBSERVER_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/cache_bound.h"
#include "core/device.h"
#include "core/observer.h"
#include "hardware/run_record.h"

namespace stackcheck::hardware {

class RunObserver final : public RuntimeObserver {
 public:
  // `device` is the undecorated backend: the observer's own calls are not
  // scheduling points and are not jittered.
  RunObserver(RunRecord& record, Device& device, std::uint64_t soft_limit,
              CacheBound bound = CacheBound::kSoftLimit)
      : record_(record), device_(device), soft_limit_(soft_limit), bound_(bound) {}

  void RegionBegin(RegionId region, std::uint64_t stacks_bytes) override;
  void RegionEnd(RegionId region) override;
  void FatalReported(RegionId attributed, CuResult code, absl::string_view message) override;
  // Against the largest need of the regions running at that moment
  // (kSoftLimit), or of every region begun so far (kLargestRegion).
  void CacheHeld(std::uint64_t held_bytes) override;

  // For ShakenDevice's launch hook: called on the launching thread.
  void KernelLaunched(const KernelArgs& args, StreamHandle stream, CuResult result);

 private:
  RunRecord& record_;
  Device& device_;
  const std::uint64_t soft_limit_;
  const CacheBound bound_;
  absl::Mutex mu_;
  absl::flat_hash_map<RegionId, EventHandle> fences_ ABSL_GUARDED_BY(mu_);
  // The stacks bytes each running region needs.
  absl::flat_hash_map<RegionId, std::uint64_t> running_needs_ ABSL_GUARDED_BY(mu_);
  std::uint64_t largest_need_ ABSL_GUARDED_BY(mu_) = 0;  // of every region begun
};

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_RUN_OBSERVER_H_
