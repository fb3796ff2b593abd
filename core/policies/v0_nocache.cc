// v0-nocache: libgomp before the cache (to 2020). Every region allocates its
// stacks block, launches on the NULL stream, synchronises the context and
// frees the block. Nothing is shared between regions, so there is no lock and
// nothing to release at close; the price is an alloc+free per region. No
// hazard carried: the baseline.
#include <memory>

#include "core/policies/policy.h"
#include "core/policies/stack_block.h"

namespace stackcheck {
namespace {

class V0NoCachePolicy : public Policy {
 public:
  using Policy::Policy;

  void Run(const RegionSpec& region, DevicePtr vars) override {
    StackBlock block;  // this region's own
    CuResult r = block.Allocate(ctx_.device, region.StacksBytes());
    if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kMemAlloc, r);
    r = ctx_.LaunchRegion(region, vars, block.ptr());
    if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kLaunchKernel, r);
    r = ctx_.device.CtxSynchronize();
    if (r != CuResult::kSuccess) ctx_.FatalRegionWait(region.id, DriverCall::kCtxSynchronize, r);
    r = block.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kMemFree, r);
  }

  bool Close() override { return true; }
  std::uint64_t CachedBytes() const override { return 0; }
};

}  // namespace

std::unique_ptr<Policy> MakeV0NoCache(RuntimeContext& ctx) {
  return std::make_unique<V0NoCachePolicy>(ctx);
}

}  // namespace stackcheck
