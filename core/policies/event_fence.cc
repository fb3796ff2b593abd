// event-fence: our policy. V1's speed (run returns once the kernel is
// enqueued; an event record per launch costs 5.1 us on an H200, against 11.5 us
// for V2's context synchronise and 28 us for V1's callback) without V1's
// hazards.
//
// Measured through this runtime on an H200 (tests/policies/
// policy_launch_bench, 528x8 warps, us per region): back to back it gains
// little over v2-gcc11 (13.0 against 14.2 tiny kernels; 63.3 against 63.8 for
// 50 us kernels), because each run waits for the previous region's kernel;
// with host work between regions, which the kernel now overlaps, it gains
// what V1 promised (50 us kernel + 50 us host work: 63.4 against 115.2; V1a
// 145.3).
//
// Design:
// - No stream callbacks at all, so no driver-thread code, no lock taken or
//   released off the launching thread, no callback for cuMemFree to wait on.
// - After each launch, run records a fence event on the NULL stream behind the
//   kernel and returns. The stacks lock guards only bookkeeping: the block, the
//   fence and which region the fence follows.
// - Before the cached block is reused, grown or freed (next run, soft limit,
//   out-of-memory retry, user free, destructor kernel, close) the previous
//   fence is waited (cuEventSynchronize). So at most one of our kernels is in
//   flight per device, nothing frees or reuses a block an unfinished kernel
//   uses - whether or not cuMemFree waits (SEM-11, both modes) - and a trap
//   surfaces as the fence's sticky error, attributed to the fence's region:
//   exactly the region that aborted, since it is the only one in flight.
// - The wait happens with the lock held, but it waits only for work already
//   enqueued on the GPU, which needs no lock, no callback and no host thread:
//   it cannot be part of a wait-for cycle. The lock is never held across the
//   completion of the kernel the current run launched.
// - A fatal error releases the lock before raising it, so the exit handler's
//   close (and a destructor kernel) can take it: no B1 hang. Once a fence has
//   failed, every later error blames that fence's region (the context is
//   poisoned for good, SEM-05), so a second thread's failing launch or
//   allocation is not blamed on its own region.
// - A fatal error first settles the kernel in flight (an abort there is the
//   root cause and is what gets reported), then retires the policy, as Close
//   also does: a thread that enters later leaves the device alone - run falls
//   back to the host, device_alloc returns 0, device_free is skipped - as
//   libgomp does for a finalized device, instead of launching a kernel whose
//   abort nobody would report, allocating into a context being destroyed, or
//   raising a second fatal error that would end the process under the first
//   one's exit handlers.
// - device_alloc applies the soft limit before and after the allocation.
//
// Accepted deviation ("sync-completion"): run returns before its kernel
// completes. Copies back are still ordered after it: libgomp copies with
// synchronous cuMemcpy on the legacy NULL stream, which waits for the kernel
// (SEM-01/02), and a user free waits the fence first. What is lost is the
// abort's timing: it is reported by the next operation on the device, or at
// close - still against the region that aborted. Code that reads results
// without going through the device (unified shared memory), or must not run
// past an abort, needs the region complete when run returns: that is
// event-fence-sync (event_fence_sync.cc), the same design waiting its own
// fence before returning.
#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "core/policies/event_fence.h"
#include "core/policies/policy.h"
#include "core/policies/stack_block.h"
#include "core/probes.h"

namespace stackcheck {
namespace {

class EventFencePolicy : public Policy {
 public:
  EventFencePolicy(RuntimeContext& ctx, bool wait_for_completion)
      : Policy(ctx),
        wait_for_completion_(wait_for_completion),
        lock_(ctx.host.NewMutex("stacks lock")) {}

  void Run(const RegionSpec& region) override {
    lock_->Lock();
    if (retired_) {
      // A fatal error was raised, or the exit path closed the device, while
      // this thread was on its way in: as libgomp does for a finalized
      // device, the region falls back to the host; the device is not touched.
      lock_->Unlock();
      return;
    }
    // The previous region's kernel must be done before its block is reused:
    // this is where its abort surfaces.
    CuResult r = WaitFenceLocked();
    if (r != CuResult::kSuccess) FailLocked(region.id, "cuEventSynchronize", r);
    if (!fence_created_) {
      r = ctx_.device.EventCreate(&fence_);
      if (r != CuResult::kSuccess) FailLocked(region.id, "cuEventCreate", r);
      fence_created_ = true;
    }
    if (!block_.Fits(region.StacksBytes())) {
      r = block_.Free(ctx_.device);
      if (r != CuResult::kSuccess) FailLocked(region.id, "cuMemFree", r);
      r = block_.Allocate(ctx_.device, region.StacksBytes());
      if (r != CuResult::kSuccess) FailLocked(region.id, "cuMemAlloc", r);
    }
    r = ctx_.LaunchRegion(region, block_.ptr());
    if (r != CuResult::kSuccess) FailLocked(region.id, "cuLaunchKernel", r);
    r = ctx_.device.EventRecord(fence_, kLegacyStream);
    if (r != CuResult::kSuccess) FailLocked(region.id, "cuEventRecord", r);
    fence_pending_ = true;
    fence_region_ = region.id;
    if (wait_for_completion_) {
      // event-fence-sync: the region completes before run returns.
      r = WaitFenceLocked();
      if (r != CuResult::kSuccess) FailLocked(region.id, "cuEventSynchronize", r);
    }
    lock_->Unlock();
  }

  DevicePtr DeviceAlloc(std::uint64_t bytes) override {
    // The soft limit is applied before the allocation (so the cache does not
    // starve it) and again after it, so that a block a concurrent run grew
    // meanwhile does not outlive this device_alloc either: when it returns,
    // the cache is within the limit or a region is still using it.
    if (!EnforceSoftLimit()) return 0;
    DevicePtr ptr = 0;
    CuResult r = ctx_.device.MemAlloc(&ptr, bytes);
    if (r == CuResult::kOutOfMemory) {
      ctx_.Probe(kProbeOomRetry);
      lock_->Lock();
      if (retired_) {
        lock_->Unlock();
        return 0;
      }
      FreeBlockLocked();
      lock_->Unlock();
      r = ctx_.device.MemAlloc(&ptr, bytes);
    }
    if (r != CuResult::kSuccess) {
      lock_->Lock();
      if (retired_) {
        lock_->Unlock();
        return 0;
      }
      FailLocked(kNoRegion, "cuMemAlloc", r);
    }
    if (!EnforceSoftLimit()) {
      // Retired while allocating: the process is exiting. The memory goes
      // back (while the context can still take it) and, as for a finalized
      // device, no allocation is reported.
      lock_->Lock();
      if (!closed_ && !poisoned_) {
        r = ctx_.device.MemFree(ptr);
        if (r != CuResult::kSuccess) ctx_.Error("cuMemFree", r);
      }
      lock_->Unlock();
      return 0;
    }
    return ptr;
  }

  void DeviceFree(DevicePtr ptr) override {
    // User data may be what the in-flight kernel works on; cuMemFree is not
    // guaranteed to wait for it (SEM-11), so the fence is waited first.
    lock_->Lock();
    if (retired_) {
      lock_->Unlock();  // the context's destruction reclaims it
      return;
    }
    CuResult r = WaitFenceLocked();
    if (r != CuResult::kSuccess) FailLocked(kNoRegion, "cuEventSynchronize", r);
    lock_->Unlock();
    r = ctx_.device.MemFree(ptr);
    if (r != CuResult::kSuccess) {
      lock_->Lock();
      if (retired_) {
        lock_->Unlock();
        return;
      }
      FailLocked(kNoRegion, "cuMemFree", r);
    }
  }

  void OnImageLoad() override {
    if (ctx_.has_constructors) RunCtorDtor(/*at_close=*/false);
  }
  void OnImageUnload() override {
    if (ctx_.has_destructors) RunCtorDtor(/*at_close=*/true);
  }

  void Close() override {
    lock_->Lock();
    CuResult r = WaitFenceLocked();
    if (r != CuResult::kSuccess) ReportAtCloseLocked("cuEventSynchronize", r);
    r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.Error("cuMemFree", r);
    if (fence_created_) {
      r = ctx_.device.EventDestroy(fence_);
      if (r != CuResult::kSuccess) ctx_.Error("cuEventDestroy", r);
      fence_created_ = false;
    }
    retired_ = true;
    closed_ = true;
    lock_->Unlock();
  }

  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 private:
  // Frees a cached block above the soft limit. False if the policy was
  // retired meanwhile (see FailLocked).
  //
  // Once retired (another thread's fatal error, the process exiting) the
  // limit is still applied while the device is open, but quietly: an error
  // here must not raise a second fatal error.
  bool EnforceSoftLimit() {
    lock_->Lock();
    if (!closed_ && block_.size() > ctx_.options.soft_limit) {
      ctx_.Probe(kProbeSoftLimitFree);
      if (retired_) {
        FreeBlockQuietlyLocked();
      } else {
        FreeBlockLocked();
      }
    }
    const bool usable = !retired_;
    lock_->Unlock();
    return usable;
  }

  // FreeBlockLocked without the fatal path: errors are recorded only.
  void FreeBlockQuietlyLocked() {
    if (poisoned_) return;  // the block can never be freed (SEM-05)
    CuResult r = WaitFenceLocked();
    if (r == CuResult::kSuccess) r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) ctx_.Error("cuMemFree", r);
  }

  // Waits for the last kernel launched, if it may still run. The fence is
  // consumed whatever the result: after a failure the context is poisoned and
  // the failure is remembered in poisoned_region_.
  CuResult WaitFenceLocked() {
    if (poisoned_) return poisoned_code_;
    if (!fence_pending_) return CuResult::kSuccess;
    fence_pending_ = false;
    CuResult r = ctx_.device.EventSynchronize(fence_);
    if (r != CuResult::kSuccess) MarkPoisonedLocked(fence_region_, r);
    return r;
  }

  void MarkPoisonedLocked(RegionId region, CuResult r) {
    if (poisoned_ || !IsStickyError(r)) return;
    poisoned_ = true;
    poisoned_region_ = region;
    poisoned_code_ = r;
  }

  // Raises a fatal error for `r`, which a call made on behalf of region
  // `own` got, releasing the lock first so that the exit handlers' close can
  // take it (the B1 hang of V3 cannot happen here).
  //
  // The kernel in flight, if any, is settled first: at most one is, so if it
  // aborted, that abort is the root cause and the error names its region and
  // code - whatever this call's own error was, and even if the call was made
  // for another region. Otherwise the error is this call's own.
  //
  // The policy is then retired: a thread that enters it later leaves the
  // device alone instead of launching a kernel whose abort no one would
  // report, or raising a second fatal error that would end the process under
  // the first one's exit handlers.
  [[noreturn]] void FailLocked(RegionId own, const char* call, CuResult r)
      ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (!poisoned_ && fence_pending_) {
      fence_pending_ = false;
      MarkPoisonedLocked(fence_region_, ctx_.device.EventSynchronize(fence_));
    }
    // A sticky error with no kernel of ours in flight to explain it.
    MarkPoisonedLocked(own, r);
    const RegionId blamed = poisoned_ ? poisoned_region_ : own;
    const CuResult code = poisoned_ ? poisoned_code_ : r;
    abort_reported_ = abort_reported_ || poisoned_;
    retired_ = true;
    lock_->Unlock();
    ctx_.FatalCall(blamed, call, code);
  }

  // Frees the cached block once its last kernel is done.
  void FreeBlockLocked() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (block_.empty()) return;
    CuResult r = WaitFenceLocked();
    if (r != CuResult::kSuccess) FailLocked(kNoRegion, "cuEventSynchronize", r);
    r = block_.Free(ctx_.device);
    if (r != CuResult::kSuccess) FailLocked(kNoRegion, "cuMemFree", r);
  }

  // Constructors at load (errors fatal) and destructors at close (inside the
  // exit handlers: errors reported, the unload goes on). Synchronous: they are
  // rare, and a failing constructor must be reported before any region runs.
  void RunCtorDtor(bool at_close) {
    lock_->Lock();
    CuResult r = WaitFenceLocked();
    if (r != CuResult::kSuccess) {
      if (!at_close) FailLocked(kNoRegion, "cuEventSynchronize", r);
      ReportAtCloseLocked("cuEventSynchronize", r);
      lock_->Unlock();
      return;  // the context is poisoned: no destructor can run
    }
    const char* call = "cuEventCreate";
    if (!fence_created_) {
      r = ctx_.device.EventCreate(&fence_);
      fence_created_ = r == CuResult::kSuccess;
    }
    if (r == CuResult::kSuccess && !block_.Fits(kDefaultStackSizePerWarp)) {
      call = "cuMemAlloc";
      r = block_.Free(ctx_.device);
      if (r == CuResult::kSuccess) {
        r = block_.Allocate(ctx_.device, kDefaultStackSizePerWarp);
      }
    }
    if (r == CuResult::kSuccess) {
      call = "cuLaunchKernel";
      r = ctx_.LaunchCtorDtor(block_.ptr());
    }
    if (r == CuResult::kSuccess) {
      call = "cuEventRecord";
      r = ctx_.device.EventRecord(fence_, kLegacyStream);
    }
    if (r == CuResult::kSuccess) {
      call = "cuEventSynchronize";
      r = ctx_.device.EventSynchronize(fence_);
    }
    if (r != CuResult::kSuccess) {
      MarkPoisonedLocked(kNoRegion, r);
      if (!at_close) FailLocked(kNoRegion, call, r);
      ctx_.Error(call, r);
    }
    lock_->Unlock();
  }

  // An abort found on the close path, i.e. inside the exit handlers, where a
  // second exit() is not allowed: the region that aborted is still named to
  // the observer, and the message kept.
  void ReportAtCloseLocked(const char* call, CuResult r) {
    if (!abort_reported_ && poisoned_) {
      abort_reported_ = true;
      ctx_.observer.FatalReported(
          poisoned_region_, poisoned_code_,
          RuntimeContext::CallErrorMessage(call, poisoned_code_));
    }
    ctx_.Error(call, r);
  }

  const bool wait_for_completion_;
  std::unique_ptr<Mutex> lock_;
  // All guarded by *lock_.
  StackBlock block_;
  EventHandle fence_{};
  bool fence_created_ = false;
  bool fence_pending_ = false;  // a kernel was launched since the last wait
  RegionId fence_region_ = kNoRegion;
  bool poisoned_ = false;  // a sticky error was seen; never cleared
  RegionId poisoned_region_ = kNoRegion;
  CuResult poisoned_code_ = CuResult::kSuccess;
  bool abort_reported_ = false;  // the observer heard about the poisoning
  // A fatal error was raised or Close ran: the process is exiting, and a
  // thread that arrives later must not use the device (see FailLocked).
  bool retired_ = false;
  bool closed_ = false;  // Close ran: the context is being destroyed
};

}  // namespace

std::unique_ptr<Policy> MakeEventFencePolicy(RuntimeContext& ctx,
                                             bool wait_for_completion) {
  return std::make_unique<EventFencePolicy>(ctx, wait_for_completion);
}

std::unique_ptr<Policy> MakeEventFence(RuntimeContext& ctx) {
  return MakeEventFencePolicy(ctx, /*wait_for_completion=*/false);
}

}  // namespace stackcheck
