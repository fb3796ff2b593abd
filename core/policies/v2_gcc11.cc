#include "core/policies/v2_gcc11.h"

#include "core/probes.h"

namespace stackcheck {

V2Gcc11Policy::V2Gcc11Policy(RuntimeContext& ctx)
    : Policy(ctx), lock_(ctx.host.NewMutex("stacks lock")) {}

void V2Gcc11Policy::LockStacks() {
  if (lock_ != nullptr) lock_->Lock();
}

void V2Gcc11Policy::UnlockStacks() {
  if (lock_ != nullptr) lock_->Unlock();
}

void V2Gcc11Policy::Run(const RegionSpec& region) {
  LockStacks();
  AcquireLocked(region.id, region.StacksBytes());
  CuResult r = ctx_.LaunchRegion(region, block_.ptr());
  if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, "cuLaunchKernel", r);
  const char* call = "";
  r = WaitForKernel(&call);
  // As committed: the fatal error is raised with the stacks lock still held.
  if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, call, r);
  UnlockStacks();
}

CuResult V2Gcc11Policy::WaitForKernel(const char** call) {
  *call = "cuCtxSynchronize";
  return ctx_.device.CtxSynchronize();
}

void V2Gcc11Policy::AcquireLocked(RegionId region, std::uint64_t need) {
  if (block_.Fits(need)) return;
  if (!block_.empty()) {
    // Nothing of ours is in flight while we hold the lock, but GCC 11 still
    // synchronises before freeing the old block.
    CuResult r = ctx_.device.CtxSynchronize();
    if (r != CuResult::kSuccess) ctx_.FatalCall(region, "cuCtxSynchronize", r);
    r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.FatalCall(region, "cuMemFree", r);
  }
  CuResult r = block_.Allocate(ctx_.device, need);
  if (r != CuResult::kSuccess) ctx_.FatalCall(region, "cuMemAlloc", r);
}

void V2Gcc11Policy::StacksFree(bool force) {
  LockStacks();
  if (!block_.empty() && (force || block_.size() > ctx_.options.soft_limit)) {
    if (!force) ctx_.Probe(kProbeSoftLimitFree);
    CuResult r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.FatalCall(kNoRegion, "cuMemFree", r);
  }
  UnlockStacks();
}

DevicePtr V2Gcc11Policy::DeviceAlloc(std::uint64_t bytes) {
  StacksFree(/*force=*/false);  // the lazy soft limit
  DevicePtr ptr = 0;
  CuResult r = ctx_.device.MemAlloc(&ptr, bytes);
  if (r == CuResult::kOutOfMemory) {
    // The cache may be what starves this allocation: give it back, retry once.
    ctx_.Probe(kProbeOomRetry);
    StacksFree(/*force=*/true);
    r = ctx_.device.MemAlloc(&ptr, bytes);
  }
  if (r != CuResult::kSuccess) ctx_.FatalCall(kNoRegion, "cuMemAlloc", r);
  return ptr;
}

void V2Gcc11Policy::Close() {
  // GCC 11's order: destroy the lock (still locked if a fatal error was raised
  // inside run on this thread: the hazard this model keeps), then free.
  lock_.reset();
  CuResult r = block_.Free(ctx_.device);
  if (r != CuResult::kSuccess) ctx_.Error("cuMemFree", r);
}

std::unique_ptr<Policy> MakeV2Gcc11(RuntimeContext& ctx) {
  return std::make_unique<V2Gcc11Policy>(ctx);
}

}  // namespace stackcheck
