#include "core/policies/v2_gcc11.h"

#include "core/probes.h"

namespace stackcheck {

V2Gcc11Policy::V2Gcc11Policy(RuntimeContext& ctx)
    : Policy(ctx), lock_(ctx.host.NewMutex("stacks lock")), block_(ctx.host, lock_.get()) {}

void V2Gcc11Policy::Run(const RegionSpec& region, DevicePtr vars) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  lock_->Lock();
  AcquireLocked(region.id, region.StacksBytes());
  CuResult r = ctx_.LaunchRegion(region, vars, block_.ptr());
  if (r != CuResult::kSuccess) ctx_.FatalCall(region.id, DriverCall::kLaunchKernel, r);
  DriverCall call = DriverCall::kCtxSynchronize;
  r = WaitForKernel(&call);
  // As committed: the fatal error is raised with the stacks lock still held.
  if (r != CuResult::kSuccess) ctx_.FatalRegionWait(region.id, call, r);
  lock_->Unlock();
}

CuResult V2Gcc11Policy::WaitForKernel(DriverCall* call) {
  *call = DriverCall::kCtxSynchronize;
  return ctx_.device.CtxSynchronize();
}

void V2Gcc11Policy::AcquireLocked(RegionId region, std::uint64_t need) {
  if (block_.Fits(need)) return;
  if (!block_.empty()) {
    // Nothing of ours is in flight while we hold the lock, but GCC 11 still
    // synchronises before freeing the old block.
    CuResult r = ctx_.device.CtxSynchronize();
    if (r != CuResult::kSuccess) ctx_.FatalCall(region, DriverCall::kCtxSynchronize, r);
    r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.FatalCall(region, DriverCall::kMemFree, r);
  }
  CuResult r = block_.Allocate(ctx_.device, need);
  if (r != CuResult::kSuccess) ctx_.FatalCall(region, DriverCall::kMemAlloc, r);
}

void V2Gcc11Policy::StacksFree(bool force) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  lock_->Lock();
  if (!block_.empty() && (force || block_.size() > ctx_.options.soft_limit)) {
    if (!force) ctx_.Probe(kProbeSoftLimitFree);
    CuResult r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.FatalCall(kNoRegion, DriverCall::kMemFree, r);
  }
  // The moment GCC's lazy limit speaks for: after the check, under the lock.
  if (!force) ctx_.ReportCacheHeld(block_.held_bytes());
  lock_->Unlock();
}

DevicePtr V2Gcc11Policy::PlainAlloc(std::uint64_t bytes, bool suppress_oom) {
  DevicePtr ptr = 0;
  CuResult r = ctx_.device.MemAlloc(&ptr, bytes);
  if (r == CuResult::kSuccess) return ptr;
  if (!(suppress_oom && r == CuResult::kOutOfMemory)) {
    ctx_.ErrorIn("nvptx_alloc", DriverCall::kMemAlloc, r);
  }
  return 0;
}

DevicePtr V2Gcc11Policy::DeviceAlloc(std::uint64_t bytes) {
  StacksFree(/*force=*/false);  // the lazy soft limit
  DevicePtr ptr = PlainAlloc(bytes, /*suppress_oom=*/true);
  if (ptr != 0) return ptr;
  // Any failure: the cache may be what starves this allocation; give it
  // back and try once more.
  ctx_.Probe(kProbeOomRetry);
  StacksFree(/*force=*/true);
  return PlainAlloc(bytes, /*suppress_oom=*/false);
}

bool V2Gcc11Policy::ReleaseAtClose() {
  // GCC's order: destroy the lock (its result is ignored: EBUSY when a fatal
  // error was raised inside run, and the mutex stays locked), then free.
  lock_->Destroy();
  if (block_.empty()) return true;
  CuResult r = block_.FreeAtClose(ctx_.device);
  if (r != CuResult::kSuccess) {
    ctx_.Error(DriverCall::kMemFree, r);
    return false;
  }
  return true;
}

bool V2Gcc11Policy::Close() { return ReleaseAtClose(); }

std::unique_ptr<Policy> MakeV2Gcc11(RuntimeContext& ctx) {
  return std::make_unique<V2Gcc11Policy>(ctx);
}

}  // namespace stackcheck
