// Shared plumbing of every policy: launch geometry, error text, fatal path.
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policies/policy.h"

namespace stackcheck {

RuntimeContext::RuntimeContext(Device& device, Host& host, RuntimeObserver& observer,
                               const RuntimeOptions& options)
    : device(device), host(host), observer(observer), options(options) {}

CuResult RuntimeContext::LaunchRegion(const RegionSpec& region, DevicePtr vars, DevicePtr stacks,
                                      HostWordHandle completion, std::uint32_t completion_value) {
  KernelArgs args;
  args.vars = vars;
  args.data = region.device_ptr;
  args.completion_word = completion;
  args.completion_value = completion_value;
  args.stacks = stacks;
  args.stack_size_per_warp = region.stack_size_per_warp;
  args.region_tag = region.id;
  args.duration_ns = region.duration_ns;
  args.action = region.aborts ? KernelAction::kTrap : KernelAction::kRun;
  // Warps of a team are the block's y dimension: warp w of team t uses slot
  // t * warps + w, as libgomp's nvptx kernels compute it.
  return device.LaunchKernel(region_kernel, Dim3{region.teams, 1, 1}, Dim3{32, region.warps, 1},
                             args, kLegacyStream);
}

CuResult RuntimeContext::LaunchCtorDtor(FunctionHandle kernel, DevicePtr stacks) {
  KernelArgs args;
  args.stacks = stacks;
  args.stack_size_per_warp = kDefaultStackSizePerWarp;
  args.region_tag = kNoRegion;
  args.duration_ns = 1000;
  return device.LaunchKernel(kernel, Dim3{1, 1, 1}, Dim3{32, 1, 1}, args, kLegacyStream);
}

std::string RuntimeContext::CallErrorMessage(DriverCall call, CuResult code, bool abort_hint) {
  return FailureMessage(DriverCallName(call), code, abort_hint);
}

std::string RuntimeContext::FailureMessage(absl::string_view failed, CuResult code,
                                           bool abort_hint) {
  std::string message = absl::StrCat(failed, " error: ", CuResultDescription(code));
  // __trap() (what abort() becomes on the device) surfaces as LAUNCH_FAILED.
  if (abort_hint && code == CuResult::kLaunchFailed) {
    absl::StrAppend(&message, " ", kAbortHint);
  }
  return message;
}

void RuntimeContext::Fatal(RegionId region, CuResult code, absl::string_view message) {
  PrintFatal(region, code, message);
  ExitAfterFatal();
}

void RuntimeContext::PrintFatal(RegionId region, CuResult code, absl::string_view message) {
  observer.FatalReported(region, code, message);
  std::lock_guard<std::mutex> lock(errors_mu_);
  errors_.push_back(absl::StrCat("fatal: ", message));
}

void RuntimeContext::ExitAfterFatal() {
  host.Exit(1);
  // Host::Exit never returns (the simulator unwinds the fiber); a backend whose
  // Exit did would let a policy run on past its fatal error.
  std::abort();
}

void RuntimeContext::FatalCall(RegionId region, DriverCall call, CuResult code) {
  Fatal(region, code, CallErrorMessage(call, code));
}

void RuntimeContext::FatalRegionWait(RegionId region, DriverCall call, CuResult code) {
  Fatal(region, code, CallErrorMessage(call, code, /*abort_hint=*/true));
}

void RuntimeContext::Error(DriverCall call, CuResult code, bool abort_hint) {
  ErrorMessage(code, CallErrorMessage(call, code, abort_hint));
}

void RuntimeContext::ErrorIn(absl::string_view caller, DriverCall call, CuResult code) {
  ErrorMessage(code, FailureMessage(absl::StrCat(caller, ": ", DriverCallName(call)), code));
}

void RuntimeContext::ErrorMessage(CuResult code, absl::string_view message) {
  observer.ErrorReported(code, message);
  std::lock_guard<std::mutex> lock(errors_mu_);
  errors_.emplace_back(message);
}

std::vector<std::string> RuntimeContext::errors() const {
  std::lock_guard<std::mutex> lock(errors_mu_);
  return errors_;
}

// The defaults: what every version before GCC 11 did for program memory.
DevicePtr Policy::DeviceAlloc(std::uint64_t bytes) {
  ctx_.ReportCacheHeld(CachedBytes());  // no limit is applied
  DevicePtr ptr = 0;
  CuResult r = ctx_.device.MemAlloc(&ptr, bytes);
  if (r != CuResult::kSuccess) {
    ctx_.ErrorIn("nvptx_alloc", DriverCall::kMemAlloc, r);
    return 0;
  }
  return ptr;
}

CuResult Policy::CopyCall(bool to_device, DevicePtr ptr, std::uint64_t bytes) {
  thread_local std::vector<unsigned char> scratch;
  if (scratch.size() < bytes) scratch.resize(bytes);
  return to_device ? ctx_.device.MemcpyHtoD(ptr, scratch.data(), bytes)
                   : ctx_.device.MemcpyDtoH(scratch.data(), ptr, bytes);
}

bool Policy::CopyToDevice(DevicePtr dst, std::uint64_t bytes) {
  CuResult r = CopyCall(/*to_device=*/true, dst, bytes);
  if (r == CuResult::kSuccess) return true;
  ctx_.Error(DriverCall::kMemcpyHtoD, r);
  return false;
}

bool Policy::CopyFromDevice(DevicePtr src, std::uint64_t bytes) {
  CuResult r = CopyCall(/*to_device=*/false, src, bytes);
  if (r == CuResult::kSuccess) return true;
  ctx_.Error(DriverCall::kMemcpyDtoH, r);
  return false;
}

bool Policy::DeviceFree(DevicePtr ptr) {
  CuResult r = ctx_.device.MemFree(ptr);
  if (r != CuResult::kSuccess) {
    ctx_.Error(DriverCall::kMemFree, r);
    return false;
  }
  return true;
}

}  // namespace stackcheck
