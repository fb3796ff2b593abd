#include "core/runtime.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace stackcheck {

Runtime::Runtime(Device& device, Host& host, RuntimeObserver& observer,
                 const PolicyInfo& policy, const RuntimeOptions& options)
    : info_(policy),
      ctx_(device, host, observer, options),
      policy_(policy.make(ctx_)),
      device_lock_(host.NewMutex("device lock")),
      exit_handler_target_(std::make_shared<std::atomic<Runtime*>>(this)) {}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::Create(
    Device& device, Host& host, RuntimeObserver& observer,
    absl::string_view policy_name, const RuntimeOptions& options) {
  const PolicyInfo* info = FindPolicy(policy_name);
  if (info == nullptr) {
    std::vector<absl::string_view> names;
    for (const PolicyInfo& p : AllPolicies()) names.push_back(p.name);
    return absl::NotFoundError(absl::StrCat("unknown policy '", policy_name,
                                            "'; known: ",
                                            absl::StrJoin(names, ", ")));
  }
  return std::make_unique<Runtime>(device, host, observer, *info, options);
}

Runtime::~Runtime() { exit_handler_target_->store(nullptr); }

void Runtime::OpenDevice() {
  device_lock_->Lock();
  if (state_.load() != State::kNew) {
    device_lock_->Unlock();
    return;  // already open (or closed): like libgomp's one-time init
  }
  CuResult r = ctx_.device.Init();
  if (r == CuResult::kSuccess) r = ctx_.device.CtxCreate();
  if (r != CuResult::kSuccess) {
    device_lock_->Unlock();  // libgomp releases its device lock before fatal
    ctx_.FatalCall(kNoRegion, "cuInit/cuCtxCreate", r);
  }
  state_.store(State::kOpen);
  // The handler must not outlive the runtime's memory, nor let it be freed
  // under a close in progress. Shared-owned (RunScenario): it holds a weak
  // reference and a strong one while it runs. Otherwise the destructor clears
  // the cell it reads.
  std::function<void()> close_handler;
  if (std::shared_ptr<Runtime> self = weak_from_this().lock()) {
    close_handler = [weak = std::weak_ptr<Runtime>(self)] {
      if (std::shared_ptr<Runtime> runtime = weak.lock()) runtime->CloseDevice();
    };
  } else {
    close_handler = [target = exit_handler_target_] {
      if (Runtime* runtime = target->load()) runtime->CloseDevice();
    };
  }
  ctx_.host.AtExit(std::move(close_handler));
  device_lock_->Unlock();
}

void Runtime::LoadImage(bool device_constructors, bool device_destructors) {
  if (state_.load() != State::kOpen) {
    ctx_.Fatal(kNoRegion, CuResult::kInvalidContext,
               "load_image: the device is not open, or an image is already loaded");
  }
  CuResult r = ctx_.device.ModuleLoad(&module_, kKernelImage);
  if (r != CuResult::kSuccess) ctx_.FatalCall(kNoRegion, "cuModuleLoad", r);
  r = ctx_.device.ModuleGetFunction(&ctx_.region_kernel, module_,
                                    kRegionKernel);
  if (r == CuResult::kSuccess && (device_constructors || device_destructors)) {
    r = ctx_.device.ModuleGetFunction(&ctx_.ctor_dtor_kernel, module_,
                                      kCtorDtorKernel);
  }
  if (r != CuResult::kSuccess) {
    ctx_.FatalCall(kNoRegion, "cuModuleGetFunction", r);
  }
  ctx_.has_constructors = device_constructors;
  ctx_.has_destructors = device_destructors;
  // Loaded before the constructors run: if one fails, the exit path must
  // still unload the image (and run the destructors) at close.
  device_lock_->Lock();
  state_.store(State::kLoaded);
  device_lock_->Unlock();
  policy_->OnImageLoad();
}

void Runtime::Run(const RegionSpec& region) {
  const State state = state_.load();
  if (state == State::kClosed) {
    // libgomp: a finalized device is not offloaded to; the region runs on the
    // host (whose code this testbed does not model).
    ctx_.observer.RegionBegin(region.id);
    ctx_.observer.RegionEnd(region.id);
    return;
  }
  if (state != State::kLoaded) {
    ctx_.Fatal(region.id, CuResult::kInvalidContext,
               absl::StrFormat("run of region %d: no image loaded on an open device",
                               region.id));
  }
  ctx_.observer.RegionBegin(region.id);
  const std::uint64_t need = region.StacksBytes();
  {
    std::lock_guard<std::mutex> lock(books_mu_);
    running_needs_.push_back(need);
  }
  policy_->Run(region);
  {
    std::lock_guard<std::mutex> lock(books_mu_);
    running_needs_.erase(
        std::find(running_needs_.begin(), running_needs_.end(), need));
  }
  ctx_.observer.RegionEnd(region.id);
}

DevicePtr Runtime::DeviceAlloc(std::uint64_t bytes) {
  const State state = state_.load();
  if (state == State::kClosed) return 0;  // omp_target_alloc: NULL
  if (state != State::kOpen && state != State::kLoaded) {
    ctx_.Fatal(kNoRegion, CuResult::kInvalidContext,
               "device_alloc: the device is not open");
  }
  DevicePtr ptr = policy_->DeviceAlloc(bytes);
  // 0: the device was given up meanwhile (the process is exiting) and
  // nothing was allocated, so there is no allocation to report on either.
  if (ptr == 0) return 0;
  {
    std::lock_guard<std::mutex> lock(books_mu_);
    user_allocations_[ptr] = bytes;
  }
  ctx_.observer.CacheHeld(policy_->CachedBytes(), LargestRunningNeed());
  return ptr;
}

void Runtime::DeviceFree(DevicePtr ptr) {
  if (ptr == 0) return;
  bool known;
  {
    std::lock_guard<std::mutex> lock(books_mu_);
    known = user_allocations_.erase(ptr) == 1;
  }
  if (state_.load() == State::kClosed) return;  // reclaimed with the context
  if (!known) {
    ctx_.Fatal(kNoRegion, CuResult::kInvalidValue,
               absl::StrFormat("device_free: 0x%x is not a live device_alloc pointer",
                               ptr));
  }
  policy_->DeviceFree(ptr);
}

void Runtime::CloseDevice() {
  device_lock_->Lock();
  const State state = state_.load();
  if (state == State::kOpen || state == State::kLoaded) {
    if (state == State::kLoaded) {
      policy_->OnImageUnload();
      CuResult r = ctx_.device.ModuleUnload(module_);
      if (r != CuResult::kSuccess) ctx_.Error("cuModuleUnload", r);
    }
    policy_->Close();
    CuResult r = ctx_.device.CtxDestroy();
    if (r != CuResult::kSuccess) ctx_.Error("cuCtxDestroy", r);
    state_.store(State::kClosed);
  }
  device_lock_->Unlock();
}

std::uint64_t Runtime::UserBytesLive() const {
  std::lock_guard<std::mutex> lock(books_mu_);
  std::uint64_t total = 0;
  for (const auto& [ptr, bytes] : user_allocations_) total += bytes;
  return total;
}

std::uint64_t Runtime::LargestRunningNeed() const {
  std::lock_guard<std::mutex> lock(books_mu_);
  std::uint64_t largest = 0;
  for (std::uint64_t need : running_needs_) largest = std::max(largest, need);
  return largest;
}

}  // namespace stackcheck
