// v1a-callback-unlock: the seed's patch (October 2020), first reading.
//
// The block is cached (reused when large enough, else freed and reallocated;
// kept until close, no soft limit) and run no longer synchronises: it takes
// the stacks lock, launches, and registers a stream callback on the NULL
// stream; the callback releases the block by *unlocking* the mutex - from the
// driver's callback thread, which does not own it. Abort detection moved into
// the callback: it sees the kernel's error status and raises the fatal error
// from the driver's thread, naming the region recorded in the device record
// (the callback's only argument is the device, as in the patch).
//
// Hazards carried on purpose: unlock by a non-owner thread; the fatal error
// raised on the callback thread (its exit handlers then close the device from
// callback context); the region blamed is read after the unlock, when another
// run may already have replaced it; the abort of a region is not reported by
// that region's run; the cache is never bounded.
#include <memory>

#include "core/policies/policy.h"
#include "core/policies/stack_block.h"
#include "core/shared.h"

namespace stackcheck {
namespace {

class V1aCallbackUnlockPolicy : public Policy {
 public:
  explicit V1aCallbackUnlockPolicy(RuntimeContext& ctx)
      : Policy(ctx),
        lock_(ctx.host.NewMutex("stacks lock")),
        block_(ctx.host, lock_.get()),
        last_region_(ctx.host, "last region", lock_.get(), kNoRegion) {}

  void Run(const RegionSpec& region, DevicePtr vars) override {
    lock_->Lock();  // released by Release(), on the callback thread
    if (!block_.Fits(region.StacksBytes())) {
      // The previous kernel's callback unlocked before we got here, so no
      // kernel of ours uses the old block any more.
      CuResult r = block_.Free(ctx_.device);
      if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kMemFree, r);
      r = block_.Allocate(ctx_.device, region.StacksBytes());
      if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kMemAlloc, r);
    }
    CuResult r = ctx_.LaunchRegion(region, vars, block_.ptr());
    if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kLaunchKernel, r);
    last_region_.Write() = region.id;
    r = ctx_.device.StreamAddCallback(kLegacyStream, &Release, this);
    if (r != CuResult::kSuccess) {
      ctx_.FatalCall(region.id, DriverCall::kStreamAddCallback, r);
    }
    // Returns with the lock held: the kernel owns the block until Release.
  }

  bool Close() override {
    // No lock taken: it may still be "held" for a kernel whose callback is
    // pending. The mutex object lives as long as the policy, because a
    // callback drained by the context's destruction still unlocks it.
    CuResult r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) {
      ctx_.Error(DriverCall::kMemFree, r);
      return false;
    }
    return true;
  }

  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 private:
  static void Release(StreamHandle, CuResult status, void* data) {
    auto* self = static_cast<V1aCallbackUnlockPolicy*>(data);
    self->lock_->Unlock();  // not the owner: the launching thread is
    if (status != CuResult::kSuccess) {
      // Read after the unlock: a run on another thread may have replaced it.
      RegionId blamed = self->last_region_.Read();
      self->ctx_.Fatal(blamed, status,
                       RuntimeContext::FailureMessage("stream callback", status,
                                                      /*abort_hint=*/true));
    }
  }

  std::unique_ptr<Mutex> lock_;
  StackBlock block_;              // guarded by *lock_ (close: without it)
  Shared<RegionId> last_region_;  // guarded by *lock_ (the callback: without it)
};

}  // namespace

std::unique_ptr<Policy> MakeV1aCallbackUnlock(RuntimeContext& ctx) {
  return std::make_unique<V1aCallbackUnlockPolicy>(ctx);
}

}  // namespace stackcheck
