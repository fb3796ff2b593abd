// v1b-callback-lock: the seed's patch (October 2020), second reading.
//
// The block is cached (no soft limit, kept until close) and run no longer
// synchronises. run takes the stacks lock only to pick the block, launch, mark
// the block busy (one more kernel in flight) and register a stream callback;
// the callback takes the lock to mark it free again, and reports a failed
// kernel from the driver's thread, naming the last region launched (the
// callback's only argument is the device).
//
// Hazards carried on purpose: a run that must grow the block does so holding
// the lock - it synchronises the context while kernels are in flight and then
// frees the old block - and both wait for the pending callback (SEM-11,
// SEM-14), which waits for the lock: deadlock. Aborts are reported by the
// callback, against the last region launched rather than the one that failed,
// and from the driver's thread. No soft limit.
#include <cstdint>
#include <memory>

#include "core/policies/policy.h"
#include "core/policies/stack_block.h"
#include "core/shared.h"

namespace stackcheck {
namespace {

class V1bCallbackLockPolicy : public Policy {
 public:
  explicit V1bCallbackLockPolicy(RuntimeContext& ctx)
      : Policy(ctx),
        lock_(ctx.host.NewMutex("stacks lock")),
        block_(ctx.host, lock_.get()),
        books_(ctx.host, "callback books", lock_.get()) {}

  void Run(const RegionSpec& region, DevicePtr vars) override {
    lock_->Lock();
    if (!block_.Fits(region.StacksBytes())) {
      if (books_.Read().in_flight > 0) {
        // Wait for the kernels still using the old block - with the lock held.
        CuResult r = ctx_.device.CtxSynchronize();
        if (r != CuResult::kSuccess) Fail(region.id, DriverCall::kCtxSynchronize, r);
      }
      CuResult r = block_.Free(ctx_.device);
      if (r != CuResult::kSuccess) Fail(region.id, DriverCall::kMemFree, r);
      r = block_.Allocate(ctx_.device, region.StacksBytes());
      if (r != CuResult::kSuccess) Fail(region.id, DriverCall::kMemAlloc, r);
    }
    CuResult r = ctx_.LaunchRegion(region, vars, block_.ptr());
    if (r != CuResult::kSuccess) Fail(region.id, DriverCall::kLaunchKernel, r);
    Books& books = books_.Write();
    ++books.in_flight;
    books.last_region = region.id;
    r = ctx_.device.StreamAddCallback(kLegacyStream, &Release, this);
    if (r != CuResult::kSuccess) Fail(region.id, DriverCall::kStreamAddCallback, r);
    lock_->Unlock();
  }

  bool Close() override {
    // Like every libgomp close, without the stacks lock: cuMemFree may wait
    // for a pending callback, which takes it.
    CuResult r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) {
      ctx_.Error(DriverCall::kMemFree, r);
      return false;
    }
    return true;
  }

  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 private:
  // This reading releases the lock before raising a fatal error in run.
  [[noreturn]] void Fail(RegionId region, DriverCall call, CuResult r) {
    lock_->Unlock();
    ctx_.FatalCall(region, call, r);
  }

  static void Release(StreamHandle, CuResult status, void* data) {
    auto* self = static_cast<V1bCallbackLockPolicy*>(data);
    self->lock_->Lock();
    Books& books = self->books_.Write();
    --books.in_flight;
    const RegionId blamed = books.last_region;
    self->lock_->Unlock();
    if (status != CuResult::kSuccess) {
      self->ctx_.Fatal(blamed, status,
                       RuntimeContext::FailureMessage("stream callback", status,
                                                      /*abort_hint=*/true));
    }
  }

  struct Books {
    std::uint32_t in_flight = 0;       // kernels whose callback has not run
    RegionId last_region = kNoRegion;  // the last region launched
  };

  std::unique_ptr<Mutex> lock_;
  StackBlock block_;     // guarded by *lock_ (close: without it)
  Shared<Books> books_;  // guarded by *lock_
};

}  // namespace

std::unique_ptr<Policy> MakeV1bCallbackLock(RuntimeContext& ctx) {
  return std::make_unique<V1bCallbackLockPolicy>(ctx);
}

}  // namespace stackcheck
