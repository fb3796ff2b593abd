// v3-trunk: libgomp trunk (2024-2026) = the GCC 11 core (v2_gcc11.h) plus
// device global constructor/destructor kernels. At image load, and at unload
// during device close, each takes the stacks lock, acquires a one-warp block
// from the cache, launches the kernel on the NULL stream and synchronises that
// stream, then unlocks.
//
// Hazard carried on purpose (suspected bug B1): a region that aborts makes run
// raise its fatal error with the stacks lock held; exit() runs the close-device
// handler on the same thread; close unloads the image, whose destructor kernel
// takes the stacks lock again - held by this very thread - and the process
// hangs at exit.
//
// Not modelled: trunk's reverse-offload path, which polls the NULL stream
// instead of synchronising the context; it is taken only for images that ask
// for reverse offload, and no scenario's image does.
#include <memory>

#include "core/policies/v2_gcc11.h"

namespace stackcheck {
namespace {

class V3TrunkPolicy : public V2Gcc11Policy {
 public:
  using V2Gcc11Policy::V2Gcc11Policy;

  void OnImageLoad() override {
    if (ctx_.has_constructors) RunCtorDtor(/*at_close=*/false);
  }
  void OnImageUnload() override {
    if (ctx_.has_destructors) RunCtorDtor(/*at_close=*/true);
  }

 private:
  // At load, errors are fatal (with the lock held, like run's); at close we
  // are inside the exit handlers, so they are reported and the unload goes on.
  void RunCtorDtor(bool at_close) {
    LockStacks();
    if (!at_close) {
      AcquireLocked(kNoRegion, kDefaultStackSizePerWarp);
    } else if (!block_.Fits(kDefaultStackSizePerWarp)) {
      CuResult r = block_.Free(ctx_.device);
      if (r == CuResult::kSuccess) {
        r = block_.Allocate(ctx_.device, kDefaultStackSizePerWarp);
      }
      if (r != CuResult::kSuccess) {
        ctx_.Error("cuMemAlloc", r);
        UnlockStacks();
        return;
      }
    }
    CuResult r = ctx_.LaunchCtorDtor(block_.ptr());
    const char* call = "cuLaunchKernel";
    if (r == CuResult::kSuccess) {
      r = ctx_.device.StreamSynchronize(kLegacyStream);
      call = "cuStreamSynchronize";
    }
    if (r != CuResult::kSuccess) {
      if (!at_close) ctx_.FatalCall(kNoRegion, call, r);
      ctx_.Error(call, r);
    }
    UnlockStacks();
  }
};

}  // namespace

std::unique_ptr<Policy> MakeV3Trunk(RuntimeContext& ctx) {
  return std::make_unique<V3TrunkPolicy>(ctx);
}

}  // namespace stackcheck
