// v2-gcc11: the stacks-block cache GCC 11 committed (January 2021).
//
// One cached block per device behind a "stacks lock". run holds the lock from
// acquiring the block, across the launch and the context synchronise, so every
// region on the device is serialised and no kernel ever runs on a block that
// is freed or reused. device_alloc applies a lazy 128 MiB soft limit (the
// block above it is freed by the next user allocation) and frees the cache and
// retries once when cuMemAlloc runs out of memory. close frees the block.
//
// Hazard carried on purpose (GCC 11's exit path): a fatal error in run is
// raised with the stacks lock still held; exit() runs the close-device handler,
// which destroys that locked mutex and frees memory in a poisoned context.
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

  void Run(const RegionSpec& region) override;
  DevicePtr DeviceAlloc(std::uint64_t bytes) override;
  void Close() override;
  std::uint64_t CachedBytes() const override { return block_.held_bytes(); }

 protected:
  // Waits for the region's kernel after the launch and returns the driver
  // call's name and result. V2: cuCtxSynchronize.
  virtual CuResult WaitForKernel(const char** call);

  // With the lock held: makes the block at least `need` bytes, fatal (lock
  // still held) on any driver error, naming `region`.
  void AcquireLocked(RegionId region, std::uint64_t need);
  // nvptx_stacks_free: takes the lock; frees the block if `force` or it is
  // above the soft limit.
  void StacksFree(bool force);

  // The stacks lock, through these two so that a thread still inside the
  // policy after Close destroyed it (possible only while another thread is
  // already running the exit handlers) proceeds unlocked, as it would on a
  // destroyed pthread mutex in practice, instead of crashing the test binary.
  void LockStacks() ABSL_NO_THREAD_SAFETY_ANALYSIS;
  void UnlockStacks() ABSL_NO_THREAD_SAFETY_ANALYSIS;

  // Null once Close destroyed it.
  std::unique_ptr<Mutex> lock_;
  StackBlock block_;  // guarded by *lock_
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_V2_GCC11_H_
