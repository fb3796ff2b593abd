// v3-trunk: libgomp trunk (2024-2026) = the GCC 11 core (v2_gcc11.h) plus
// device global constructor/destructor kernels (nvptx_do_global_cdtors).
// Each is looked up first: cuModuleGetFunction of the plain entry name, and
// on CUDA_ERROR_NOT_FOUND the "__mgomp" variant that OpenMP images carry.
// Only that variant takes the stacks lock and a one-warp block from the cache,
// launches on the NULL stream and synchronises the stream. Its block comes
// from nvptx_stacks_acquire, whose failures (cuCtxSynchronize, cuMemFree,
// cuMemAlloc) are fatal there as in a region: raised with the stacks lock
// held, and with libgomp's device lock too, which load and close run under.
// A failed look-up, launch or synchronisation is reported (the stream is
// synchronised after a rejected launch too; neither name found is no
// failure): the lock is released and load, or close, returns failure; libgomp then releases its
// device lock and raises the fatal error. The destructors run inside close,
// before the mutexes are destroyed, and close goes on after a failed one:
// it frees the block and destroys the context, then reports the failure
// (nvptx_close_device). Images are not unloaded at exit.
//
// Hazard carried on purpose (B1, by reading trunk): a fatal error raised with
// the stacks lock held on a healthy context - the stacks allocation out of
// memory, a rejected launch - exits; close runs the "__mgomp" destructor on
// the same thread, which locks the stacks lock it already holds. After a
// kernel trap the look-up itself fails (SEM-05: 719 for every name), so an
// abort does not reach the lock this way.
//
// Not modelled: trunk's reverse-offload path, which polls the NULL stream
// instead of synchronising the context; it is taken only for images that ask
// for reverse offload, and no scenario's image does.
#include <memory>

#include "core/policies/v2_gcc11.h"

namespace stackcheck {
namespace {

// The image's entry names (device.h's kCtorDtorKernel is the variant).
constexpr absl::string_view kPlainCtorDtor = "ctor_dtor";

class V3TrunkPolicy : public V2Gcc11Policy {
 public:
  using V2Gcc11Policy::V2Gcc11Policy;

  bool OnImageLoad() override { return !ctx_.has_constructors || RunCtorDtor(); }

  bool Close() override {
    const bool destructors_ran = !ctx_.has_destructors || RunCtorDtor();
    if (!ReleaseAtClose()) return false;
    if (destructors_ran) return true;  // the runtime destroys the context
    // nvptx_close_device goes on after a failed destructor: the context is
    // destroyed here, and the failure reported last (the runtime then
    // raises "device finalization failed" and destroys nothing more).
    const CuResult r = ctx_.device.CtxDestroy();
    if (r != CuResult::kSuccess) ctx_.Error(DriverCall::kCtxDestroy, r);
    return false;
  }

 private:
  bool RunCtorDtor() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    FunctionHandle kernel{};
    CuResult r = ctx_.device.ModuleGetFunction(&kernel, ctx_.module, kPlainCtorDtor);
    if (r == CuResult::kSuccess) {
      // A plain entry runs without soft stacks; no image here has one.
      return true;
    }
    if (r != CuResult::kNotFound) {
      ctx_.Error(DriverCall::kModuleGetFunction, r);
      return false;
    }
    r = ctx_.device.ModuleGetFunction(&kernel, ctx_.module, kCtorDtorKernel);
    if (r == CuResult::kNotFound) return true;  // neither name: nothing to run
    if (r != CuResult::kSuccess) {
      ctx_.Error(DriverCall::kModuleGetFunction, r);
      return false;
    }
    lock_->Lock();
    // nvptx_stacks_acquire: fatal on failure, with this lock held.
    AcquireLocked(kNoRegion, kDefaultStackSizePerWarp);
    bool ok = true;
    r = ctx_.LaunchCtorDtor(kernel, block_.ptr());
    if (r != CuResult::kSuccess) {
      ctx_.Error(DriverCall::kLaunchKernel, r);
      ok = false;
    }
    // Synchronised whether or not the launch was accepted.
    r = ctx_.device.StreamSynchronize(kLegacyStream);
    if (r != CuResult::kSuccess) {
      ctx_.Error(DriverCall::kStreamSynchronize, r);
      ok = false;
    }
    lock_->Unlock();
    return ok;
  }
};

}  // namespace

std::unique_ptr<Policy> MakeV3Trunk(RuntimeContext& ctx) {
  return std::make_unique<V3TrunkPolicy>(ctx);
}

}  // namespace stackcheck
