// event-fence: our policy. V1's speed - run returns once the kernel is
// enqueued - without V1's hazards, and without waiting for anything on the
// launch path.
//
// Design:
// - No stream callbacks at all, so no driver-thread code, no lock taken or
//   released off the launching thread, no callback for cuMemFree to wait on.
// - Every kernel goes to the legacy NULL stream, so our kernels run one after
//   another in launch order (SEM-01/02) and the next launch may reuse the
//   cached block at once: the stream, not the host, orders the reuse.
// - Each kernel, as its last block finishes, writes the region's sequence
//   number into a word of pinned host memory (KernelArgs::completion_word,
//   EXT-02: device-side entry code is the runtime's own in libgomp): a
//   completion ledger the GPU keeps in launch order, at no host cost. The
//   launch path is lock, launch, unlock - nothing waits, nothing else is
//   enqueued. (A host-side cuStreamWriteValue32 behind each kernel, EXT-01,
//   does the same but adds a driver call to every launch.)
// - Before the cached block is freed or grown (soft limit, out-of-memory
//   retry, a larger region, close) and before a user free, the policy waits
//   for its kernels (cuStreamSynchronize on the legacy stream) - unless the
//   ledger already shows them all complete. So nothing frees a block an
//   unfinished kernel uses, whether or not cuMemFree waits (SEM-11, both
//   modes).
// - Exact abort attribution with several kernels in flight: after a sticky
//   error every driver call fails (SEM-05), but the ledger is host memory and
//   still readable, and neither the faulting kernel nor any kernel after it
//   writes it. The region that aborted is the first one the ledger does not
//   show complete - whichever call, on whichever thread, surfaced the error.
// - The stacks lock guards bookkeeping only. The waits above happen with it
//   held, but they wait for work already enqueued on the GPU, which needs no
//   lock, no callback and no host thread: they cannot be part of a wait-for
//   cycle.
// - A fatal error first settles the kernels in flight (an abort there is the
//   root cause and is what gets reported), releases the lock, so that the
//   exit handlers' close (and a destructor kernel) can take it - no B1 hang -
//   and retires the policy, as Close also does: a thread that enters later
//   leaves the device alone - run falls back to the host, device_alloc
//   returns 0, device_free is skipped - as libgomp does for a finalized
//   device, instead of launching a kernel whose abort nobody would report,
//   or raising a second fatal error under the first one's exit handlers.
// - device_alloc, device_free, copies, constructors and close run under
//   libgomp's device lock, so they never raise a fatal error: they report
//   (naming the region that aborted, when one did) and return failure, and
//   the runtime raises the fatal error after releasing the device lock.
// - device_alloc applies the soft limit before the allocation (not in
//   event-fence-keep, event_fence_keep.cc) and, after any failed allocation,
//   frees the cache once it is idle and retries.
//
// Accepted deviation ("sync-completion"): run returns before its kernel
// completes. Copies back are still ordered after it: libgomp copies with
// synchronous cuMemcpy on the legacy NULL stream, which waits for the kernel
// (SEM-01/02), and a user free waits first. What is lost is the abort's
// timing: it is reported by the next operation on the device, or at close -
// still against the region that aborted. Code that reads results without
// going through the device (unified shared memory), or must not run past an
// abort, needs the region complete when run returns: that is
// event-fence-sync (event_fence_sync.cc), the same design waiting for its
// own kernel before returning.
//
// The completion ledger fences each kernel, as an event per launch would,
// without an event: hence the name.
#include "core/policies/event_fence.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "core/policies/policy.h"
#include "core/policies/stack_block.h"
#include "core/probes.h"
#include "core/shared.h"

namespace stackcheck {
namespace {

// The ledger is read on the launch path only when this many launches are
// unconfirmed, to bound the bookkeeping; a read is a plain load on hardware
// but a scheduling point in the simulator.
constexpr std::size_t kSettleAt = 16;

// Sequence numbers wrap; `a` is later than `b` if it is less than half the
// range ahead.
bool After(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) > 0; }

class EventFencePolicy : public Policy {
 public:
  EventFencePolicy(RuntimeContext& ctx, const EventFenceOptions& options)
      : Policy(ctx),
        options_(options),
        lock_(ctx.host.NewMutex("stacks lock")),
        block_(ctx.host, lock_.get()),
        books_(ctx.host, "fence books", lock_.get()) {}

  void Run(const RegionSpec& region, DevicePtr vars) override {
    lock_->Lock();
    Books& b = books_.Write();
    if (b.retired) {
      // A fatal error was raised, or the exit path closed the device, while
      // this thread was on its way in: as libgomp does for a finalized
      // device, the region falls back to the host; the device is not touched.
      lock_->Unlock();
      return;
    }
    if (b.poisoned) FailLocked(region.id, DriverCall::kLaunchKernel, b.poisoned_code);
    CuResult r = CuResult::kSuccess;
    if (b.ledger == HostWordHandle{}) {
      r = ctx_.device.HostWordAlloc(&b.ledger);
      if (r != CuResult::kSuccess) FailLocked(region.id, DriverCall::kMemHostAlloc, r);
    }
    if (b.in_flight.size() >= kSettleAt) SettleLocked();
    if (!block_.Fits(region.StacksBytes())) {
      // The old block may still be in use: free it only once idle.
      r = WaitIdleLocked();
      if (r != CuResult::kSuccess) FailLocked(region.id, DriverCall::kStreamSynchronize, r);
      r = block_.Free(ctx_.device);
      if (r != CuResult::kSuccess) FailLocked(region.id, DriverCall::kMemFree, r);
      r = block_.Allocate(ctx_.device, region.StacksBytes());
      if (r != CuResult::kSuccess) FailLocked(region.id, DriverCall::kMemAlloc, r);
    }
    const std::uint32_t seq = b.launched_seq + 1;
    r = ctx_.LaunchRegion(region, vars, block_.ptr(), b.ledger, seq);
    if (r != CuResult::kSuccess) FailLocked(region.id, DriverCall::kLaunchKernel, r);
    // Enqueued: from here on this region is one the ledger may not confirm.
    b.launched_seq = seq;
    b.in_flight.push_back({seq, region.id});
    if (options_.wait_for_completion) {
      // event-fence-sync: the region completes before run returns.
      r = WaitIdleLocked();
      if (r != CuResult::kSuccess) FailLocked(region.id, DriverCall::kStreamSynchronize, r);
    }
    lock_->Unlock();
  }

  // Called with the runtime's device lock held, like every entry point
  // below but Run: none of them may raise a fatal error (the exit handler
  // would wait for the device lock this thread holds). They report and
  // return failure; the runtime raises the fatal error after unlocking.
  DevicePtr DeviceAlloc(std::uint64_t bytes) override {
    lock_->Lock();
    if (books_.Read().retired) {
      lock_->Unlock();
      return 0;  // the process is exiting: as for a finalized device
    }
    CuResult r = CuResult::kSuccess;
    if (!options_.keep_across_allocations && block_.size() > ctx_.options.soft_limit) {
      ctx_.Probe(kProbeSoftLimitFree);
      r = FreeBlockLocked();
    }
    ctx_.ReportCacheHeld(block_.held_bytes());
    lock_->Unlock();
    if (r != CuResult::kSuccess) return ReportFailure(DriverCall::kMemFree, r), 0;
    DevicePtr ptr = 0;
    r = ctx_.device.MemAlloc(&ptr, bytes);
    if (r == CuResult::kSuccess) return ptr;
    // Any failure: the cache may be what starves this allocation.
    ctx_.Probe(kProbeOomRetry);
    lock_->Lock();
    CuResult freed = books_.Read().retired ? CuResult::kSuccess : FreeBlockLocked();
    lock_->Unlock();
    if (freed != CuResult::kSuccess) return ReportFailure(DriverCall::kMemFree, freed), 0;
    r = ctx_.device.MemAlloc(&ptr, bytes);
    if (r != CuResult::kSuccess) return ReportFailure(DriverCall::kMemAlloc, r), 0;
    return ptr;
  }

  bool DeviceFree(DevicePtr ptr) override {
    // Program data may be what a kernel in flight works on; cuMemFree is not
    // guaranteed to wait for it (SEM-11), so our kernels are waited first.
    lock_->Lock();
    if (books_.Read().retired) {
      lock_->Unlock();  // the context's destruction reclaims it
      return true;
    }
    CuResult r = WaitIdleLocked();
    lock_->Unlock();
    if (r != CuResult::kSuccess) return ReportFailure(DriverCall::kStreamSynchronize, r);
    r = ctx_.device.MemFree(ptr);
    if (r != CuResult::kSuccess) return ReportFailure(DriverCall::kMemFree, r);
    return true;
  }

  bool CopyToDevice(DevicePtr dst, std::uint64_t bytes) override {
    CuResult r = Policy::CopyCall(/*to_device=*/true, dst, bytes);
    return r == CuResult::kSuccess || ReportFailure(DriverCall::kMemcpyHtoD, r);
  }
  bool CopyFromDevice(DevicePtr src, std::uint64_t bytes) override {
    CuResult r = Policy::CopyCall(/*to_device=*/false, src, bytes);
    return r == CuResult::kSuccess || ReportFailure(DriverCall::kMemcpyDtoH, r);
  }

  bool OnImageLoad() override { return !ctx_.has_constructors || RunCtorDtor(); }

  bool Close() override {
    bool ok = !ctx_.has_destructors || RunCtorDtor();
    lock_->Lock();
    CuResult r = WaitIdleLocked();
    if (r != CuResult::kSuccess) {
      ReportLocked(DriverCall::kStreamSynchronize, r);
      ok = false;
    } else {
      r = block_.Free(ctx_.device);
      if (r != CuResult::kSuccess) ReportLocked(DriverCall::kMemFree, r), ok = false;
    }
    Books& b = books_.Write();
    if (b.ledger != HostWordHandle{} && !b.poisoned) {
      // On a poisoned context the call would fail; the context's release
      // reclaims the word.
      r = ctx_.device.HostWordFree(b.ledger);
      if (r != CuResult::kSuccess) ctx_.Error(DriverCall::kMemFreeHost, r), ok = false;
    }
    b.ledger = HostWordHandle{};
    b.retired = true;
    b.closed = true;
    lock_->Unlock();
    return ok;
  }

  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 private:
  struct Launch {
    std::uint32_t seq;
    RegionId region;
  };

  // Drops the launches the ledger shows complete.
  void SettleLocked() {
    Books& b = books_.Write();
    if (b.in_flight.empty()) return;
    const std::uint32_t done = ctx_.device.HostWordLoad(b.ledger);
    while (!b.in_flight.empty() && !After(b.in_flight.front().seq, done)) {
      b.in_flight.pop_front();
    }
  }

  // Waits until none of our kernels may still run. After a failure the
  // context is poisoned for good, and the region that aborted is remembered
  // in the books' poisoned_region.
  CuResult WaitIdleLocked() {
    if (books_.Read().poisoned) return books_.Read().poisoned_code;
    SettleLocked();
    if (books_.Read().in_flight.empty()) return CuResult::kSuccess;
    const CuResult r = ctx_.device.StreamSynchronize(kLegacyStream);
    if (r != CuResult::kSuccess) {
      MarkPoisonedLocked(kNoRegion, r);
      return r;
    }
    books_.Write().in_flight.clear();
    return r;
  }

  // The region whose kernel aborted, if one of ours did: the oldest launch
  // the ledger does not show complete, since neither a faulting kernel nor
  // the kernels dropped behind it write it. Only meaningful once the context is
  // poisoned.
  std::optional<RegionId> AbortedRegionLocked() {
    SettleLocked();
    const Books& b = books_.Read();
    if (b.in_flight.empty()) return std::nullopt;
    return b.in_flight.front().region;
  }

  // Records a sticky error: blamed on the region whose kernel aborted, or on
  // `otherwise` when none of ours was in flight to explain it.
  void MarkPoisonedLocked(RegionId otherwise, CuResult r) {
    if (books_.Read().poisoned || !IsStickyError(r)) return;
    const RegionId aborted = AbortedRegionLocked().value_or(otherwise);
    Books& b = books_.Write();
    b.poisoned = true;
    b.poisoned_region = aborted;
    b.poisoned_code = r;
    b.in_flight.clear();
  }

  // Raises a fatal error for `r`, which a call made on behalf of region
  // `own` got, releasing the lock first so that the exit handlers' close can
  // take it (the B1 hang of V3 cannot happen here).
  //
  // The kernels in flight are settled first: if one of them aborted, that
  // abort is the root cause and the error names its region and code -
  // whatever this call's own error was, and even if the call was made for
  // another region. Otherwise the error is this call's own.
  //
  // The policy is then retired: a thread that enters it later leaves the
  // device alone instead of launching a kernel whose abort no one would
  // report, or raising a second fatal error that would end the process under
  // the first one's exit handlers.
  //
  // The message is printed before the lock is released: a thread that then
  // finds the policy retired - and whose caller may raise a fatal error of
  // its own, out of memory for a mapping the retired policy refused - or
  // finds the lock free, prints after it, so the user reads the root cause
  // first, and an exit on another thread cannot end the process before it.
  [[noreturn]] void FailLocked(RegionId own, DriverCall call,
                               CuResult r) ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (!books_.Read().poisoned) {
      if (IsStickyError(r)) {
        MarkPoisonedLocked(own, r);
      } else {
        WaitIdleLocked();
      }
    }
    Books& b = books_.Write();
    const bool poisoned = b.poisoned;
    const RegionId blamed = poisoned ? b.poisoned_region : own;
    const CuResult code = poisoned ? b.poisoned_code : r;
    ctx_.PrintFatal(blamed, code,
                    RuntimeContext::CallErrorMessage(call, code, /*abort_hint=*/poisoned));
    b.retired = true;
    lock_->Unlock();
    ctx_.ExitAfterFatal();
  }

  // Frees the cached block once its last kernel is done.
  CuResult FreeBlockLocked() {
    if (block_.empty()) return CuResult::kSuccess;
    CuResult r = WaitIdleLocked();
    if (r == CuResult::kSuccess) r = block_.Free(ctx_.device);
    return r;
  }

  // A failure on a path that must not be fatal: printed, naming the region
  // that aborted (with libgomp's hint) when the context is poisoned, as the
  // ledger tells it. Returns false, for the callers' convenience.
  bool ReportFailure(DriverCall call, CuResult r) {
    lock_->Lock();
    ReportLocked(call, r);
    lock_->Unlock();
    return false;
  }
  // ReportFailure with the lock held. A sticky error poisons the books; any
  // other failure may be an abort's shadow - a synchronous copy that a
  // trap woke fails with CUDA_ERROR_UNKNOWN (SEM-14), and an allocation may
  // find no memory while an aborted region's kernels hold it - so the
  // kernels in flight are settled first, as a fatal error's are: if one of
  // them aborted, that is what the message reports. The message then comes
  // before the caller's own fatal error, if it raises one.
  void ReportLocked(DriverCall call, CuResult r) {
    if (IsStickyError(r)) {
      MarkPoisonedLocked(kNoRegion, r);
    } else if (!books_.Read().poisoned) {
      WaitIdleLocked();
    }
    const Books& b = books_.Read();
    if (!b.poisoned) {
      ctx_.Error(call, r);
      return;
    }
    std::string message = RuntimeContext::CallErrorMessage(call, b.poisoned_code,
                                                           /*abort_hint=*/true);
    if (b.poisoned_region != kNoRegion) {
      absl::StrAppend(&message, " in region ", b.poisoned_region);
    }
    ctx_.ErrorMessage(b.poisoned_code, message);
  }

  // Constructors at load, destructors at close: synchronous and reported,
  // never fatal (the device lock is held). They start from an idle device, so
  // a fault while one runs is its own.
  bool RunCtorDtor() {
    lock_->Lock();
    CuResult r = WaitIdleLocked();
    DriverCall call = DriverCall::kStreamSynchronize;
    if (r == CuResult::kSuccess) {
      call = DriverCall::kMemAlloc;
      if (!block_.Fits(kDefaultStackSizePerWarp)) {
        r = block_.Free(ctx_.device);
        if (r == CuResult::kSuccess) {
          r = block_.Allocate(ctx_.device, kDefaultStackSizePerWarp);
        }
      }
    }
    if (r == CuResult::kSuccess) {
      call = DriverCall::kLaunchKernel;
      r = ctx_.LaunchCtorDtor(ctx_.ctor_dtor_kernel, block_.ptr());
    }
    if (r == CuResult::kSuccess) {
      call = DriverCall::kStreamSynchronize;
      r = ctx_.device.StreamSynchronize(kLegacyStream);
    }
    if (r != CuResult::kSuccess) ReportLocked(call, r);
    lock_->Unlock();
    return r == CuResult::kSuccess;
  }

  // The policy's bookkeeping. Each locked section or helper takes it once
  // (books_.Read() or Write()) and uses it only while *lock_ is held.
  struct Books {
    // The GPU writes each completed launch's seq here; none until the first run.
    HostWordHandle ledger{};
    std::uint32_t launched_seq = 0;  // the last launch's sequence number
    std::deque<Launch> in_flight;    // launches not known complete, oldest first
    bool poisoned = false;           // a sticky error was seen; never cleared
    RegionId poisoned_region = kNoRegion;
    CuResult poisoned_code = CuResult::kSuccess;
    // A fatal error was raised or Close ran: the process is exiting, and a
    // thread that arrives later must not use the device (see FailLocked).
    bool retired = false;
    bool closed = false;  // Close ran: the context is being destroyed
  };

  const EventFenceOptions options_;
  std::unique_ptr<Mutex> lock_;
  // Both guarded by *lock_.
  StackBlock block_;
  Shared<Books> books_;
};

}  // namespace

std::unique_ptr<Policy> MakeEventFencePolicy(RuntimeContext& ctx,
                                             const EventFenceOptions& options) {
  return std::make_unique<EventFencePolicy>(ctx, options);
}

std::unique_ptr<Policy> MakeEventFence(RuntimeContext& ctx) {
  return MakeEventFencePolicy(ctx, EventFenceOptions{});
}

}  // namespace stackcheck
