#include "tests/properties/racy_policy.h"

#include <memory>

#include "core/policies/policy.h"
#include "core/policies/stack_block.h"

namespace stackcheck::properties::testing {
namespace {

class RacyGrow final : public Policy {
 public:
  explicit RacyGrow(RuntimeContext& ctx)
      : Policy(ctx), lock_(ctx.host.NewMutex("stacks lock")), block_(ctx.host, lock_.get()) {}

  void Run(const RegionSpec& region, DevicePtr vars) override {
    // The planted mistake: the block is read and grown without the lock.
    if (!block_.Fits(region.StacksBytes())) {
      CuResult r = block_.Free(ctx_.device);
      if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kMemFree, r);
      r = block_.Allocate(ctx_.device, region.StacksBytes());
      if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kMemAlloc, r);
    }
    MutexLock lock(lock_.get());
    CuResult r = ctx_.LaunchRegion(region, vars, block_.ptr());
    if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kLaunchKernel, r);
    r = ctx_.device.CtxSynchronize();
    if (r != CuResult::kSuccess) ctx_.FatalRegionWait(region.id, DriverCall::kCtxSynchronize, r);
  }

  bool Close() override {
    MutexLock lock(lock_.get());
    const CuResult r = block_.Free(ctx_.device);
    if (r == CuResult::kSuccess) return true;
    ctx_.Error(DriverCall::kMemFree, r);
    return false;
  }

  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 private:
  std::unique_ptr<Mutex> lock_;
  StackBlock block_;  // meant to be guarded by *lock_; Run breaks that
};

std::unique_ptr<Policy> MakeRacyGrow(RuntimeContext& ctx) {
  return std::make_unique<RacyGrow>(ctx);
}

}  // namespace

const PolicyInfo& RacyGrowPolicy() {
  static const PolicyInfo info{"test-racy-grow",
                               "test only: reads and grows the cached block before taking "
                               "the stacks lock",
                               &MakeRacyGrow};
  return info;
}

}  // namespace stackcheck::properties::testing
