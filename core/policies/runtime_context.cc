// Shared plumbing of every policy: launch geometry, error text, fatal path.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "core/policies/policy.h"

namespace stackcheck {

RuntimeContext::RuntimeContext(Device& device, Host& host,
                               RuntimeObserver& observer,
                               const RuntimeOptions& options)
    : device(device), host(host), observer(observer), options(options) {}

CuResult RuntimeContext::LaunchRegion(const RegionSpec& region,
                                      DevicePtr stacks,
                                      HostWordHandle completion,
                                      std::uint32_t completion_value) {
  KernelArgs args;
  args.completion_word = completion;
  args.completion_value = completion_value;
  args.stacks = stacks;
  args.stack_size_per_warp = region.stack_size_per_warp;
  args.region_tag = region.id;
  args.duration_ns = region.duration_ns;
  args.action = region.aborts ? KernelAction::kTrap : KernelAction::kRun;
  // Warps of a team are the block's y dimension: warp w of team t uses slot
  // t * warps + w, as libgomp's nvptx kernels compute it.
  return device.LaunchKernel(region_kernel, Dim3{region.teams, 1, 1},
                             Dim3{32, region.warps, 1}, args, kLegacyStream);
}

CuResult RuntimeContext::LaunchCtorDtor(DevicePtr stacks) {
  KernelArgs args;
  args.stacks = stacks;
  args.stack_size_per_warp = kDefaultStackSizePerWarp;
  args.region_tag = kNoRegion;
  args.duration_ns = 1000;
  return device.LaunchKernel(ctor_dtor_kernel, Dim3{1, 1, 1}, Dim3{32, 1, 1},
                             args, kLegacyStream);
}

std::string RuntimeContext::CallErrorMessage(absl::string_view call,
                                             CuResult code) {
  std::string message =
      absl::StrCat(call, " error: ", CuResultDescription(code));
  // __trap() (what abort() becomes on the device) surfaces as LAUNCH_FAILED.
  if (code == CuResult::kLaunchFailed) {
    absl::StrAppend(&message, " (perhaps abort was called)");
  }
  return message;
}

void RuntimeContext::Fatal(RegionId region, CuResult code,
                           absl::string_view message) {
  observer.FatalReported(region, code, message);
  {
    std::lock_guard<std::mutex> lock(errors_mu_);
    errors_.push_back(absl::StrCat("fatal: ", message));
  }
  host.Exit(1);
  // Host::Exit never returns (the simulator unwinds the fiber); a backend whose
  // Exit did would let a policy run on past its fatal error.
  std::abort();
}

void RuntimeContext::FatalCall(RegionId region, absl::string_view call,
                               CuResult code) {
  Fatal(region, code, CallErrorMessage(call, code));
}

void RuntimeContext::Error(absl::string_view call, CuResult code) {
  std::lock_guard<std::mutex> lock(errors_mu_);
  errors_.push_back(CallErrorMessage(call, code));
}

std::vector<std::string> RuntimeContext::errors() const {
  std::lock_guard<std::mutex> lock(errors_mu_);
  return errors_;
}

// The defaults: what every version before GCC 11 did for user memory.
DevicePtr Policy::DeviceAlloc(std::uint64_t bytes) {
  DevicePtr ptr = 0;
  CuResult r = ctx_.device.MemAlloc(&ptr, bytes);
  if (r != CuResult::kSuccess) ctx_.FatalCall(kNoRegion, "cuMemAlloc", r);
  return ptr;
}

void Policy::DeviceFree(DevicePtr ptr) {
  CuResult r = ctx_.device.MemFree(ptr);
  if (r != CuResult::kSuccess) ctx_.FatalCall(kNoRegion, "cuMemFree", r);
}

}  // namespace stackcheck
