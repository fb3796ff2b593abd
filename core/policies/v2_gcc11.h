// v2-gcc11: the stacks-block cache GCC 11 committed (January 2021), shipped
// unchanged in GCC 11-14 (Debian 12's GCC 12.2 plugin carries it).
//
// One cached block per device behind a "stacks lock" (plugin-nvptx.c's
// omp_stacks.lock). GOMP_OFFLOAD_run holds the lock from nvptx_stacks_acquire
// across the launch and the context synchronise, so every region on the
// device is serialised and no kernel runs on a block that is freed or reused.
// GOMP_OFFLOAD_alloc (called with libgomp's device lock held) applies a lazy
// 128 MiB soft limit through nvptx_stacks_free(force=false), and after any
// failed cuMemAlloc frees the cache (force) and tries once more; a failure is
// printed and NULL goes to the caller. nvptx_close_device destroys the stacks
// lock, frees the block and destroys the context, stopping at the first
// failing call.
//
// Hazards carried on purpose, as GCC has them: a fatal error in run is raised
// with the stacks lock held, and the exit path then destroys that locked mutex
// (EBUSY: it stays locked). Another thread inside GOMP_OFFLOAD_alloc holds the
// device lock while it waits for the stacks lock, and the exiting thread's
// handler (gomp_target_fini) waits for the device lock: the exit-time hang.
//
// V3 (v3_trunk.cc) is this core plus constructor/destructor kernels; it
// extends the class through the protected hooks below.
#ifndef STACKCHECK_CORE_POLICIES_V2_GCC11_H_
#define STACKCHECK_CORE_POLICIES_V2_GCC11_H_

#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "core/policies/policy.h"
#include "core/policies/stack_block.h"

namespace stackcheck {

class V2Gcc11Policy : public Policy {
 public:
  explicit V2Gcc11Policy(RuntimeContext& ctx);

  void Run(const RegionSpec& region, DevicePtr vars) override;
  DevicePtr DeviceAlloc(std::uint64_t bytes) override;
  bool Close() override;
  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 protected:
  // Waits for the region's kernel after the launch and returns the driver
  // call and its result. V2: cuCtxSynchronize.
  virtual CuResult WaitForKernel(DriverCall* call);

  // nvptx_stacks_acquire, lock held: makes the block at least `need` bytes,
  // fatal (lock still held) on any driver error, naming `region`.
  void AcquireLocked(RegionId region, std::uint64_t need);
  // nvptx_stacks_free: takes the lock; frees the block if `force` or it is
  // above the soft limit; a failed cuMemFree is fatal, lock held.
  void StacksFree(bool force);
  // nvptx_alloc: one cuMemAlloc; out of memory is silent when
  // `suppress_oom`, any other failure is printed; 0 on failure.
  DevicePtr PlainAlloc(std::uint64_t bytes, bool suppress_oom);
  // The part of nvptx_close_device after the destructors: destroy the
  // stacks lock (EBUSY if held: it stays locked), free the block (its
  // fields are left stale: GCC frees the device record next).
  bool ReleaseAtClose();

  std::unique_ptr<Mutex> lock_;
  // Guarded by *lock_, except in nvptx_close_device (ReleaseAtClose), which
  // frees it without the lock, as GCC does.
  StackBlock block_;
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_V2_GCC11_H_
