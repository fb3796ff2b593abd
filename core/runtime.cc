#include "core/runtime.h"

#include <algorithm>
#include <csignal>
#include <functional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace stackcheck {

Runtime::Runtime(Device& device, Host& host, RuntimeObserver& observer, const PolicyInfo& policy,
                 const RuntimeOptions& options)
    : info_(policy),
      ctx_(device, host, observer, options),
      policy_(policy.make(ctx_)),
      device_lock_(host.NewMutex("device lock")),
      state_(host, "device state", device_lock_.get(), State::kNew),
      exit_handler_target_(std::make_shared<std::atomic<Runtime*>>(this)),
      user_allocations_(host, "user allocations", device_lock_.get()) {}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::Create(Device& device, Host& host,
                                                         RuntimeObserver& observer,
                                                         absl::string_view policy_name,
                                                         const RuntimeOptions& options) {
  const PolicyInfo* info = FindPolicy(policy_name);
  if (info == nullptr) {
    std::vector<absl::string_view> names;
    for (const PolicyInfo& p : AllPolicies()) names.push_back(p.name);
    return absl::NotFoundError(
        absl::StrCat("unknown policy '", policy_name, "'; known: ", absl::StrJoin(names, ", ")));
  }
  return std::make_unique<Runtime>(device, host, observer, *info, options);
}

Runtime::~Runtime() { exit_handler_target_->store(nullptr); }

void Runtime::OpenDevice() {
  device_lock_->Lock();
  if (state_.Read() != State::kNew) {
    device_lock_->Unlock();
    return;  // already open (or closed): like libgomp's one-time init
  }
  DriverCall call = DriverCall::kInit;
  CuResult r = ctx_.device.Init();
  if (r == CuResult::kSuccess) {
    call = DriverCall::kCtxCreate;
    r = ctx_.device.CtxCreate();
  }
  if (r != CuResult::kSuccess) {
    device_lock_->Unlock();  // libgomp releases its device lock before fatal
    ctx_.FatalCall(kNoRegion, call, r);
  }
  state_.Write() = State::kOpen;
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
  device_lock_->Lock();
  if (state_.Read() != State::kOpen) {
    FatalUnlocking(kNoRegion, CuResult::kInvalidContext,
                   "load_image: the device is not open, or an image is already loaded");
  }
  CuResult r = ctx_.device.ModuleLoad(&ctx_.module, kKernelImage);
  if (r == CuResult::kSuccess) {
    r = ctx_.device.ModuleGetFunction(&ctx_.region_kernel, ctx_.module, kRegionKernel);
  }
  if (r == CuResult::kSuccess && (device_constructors || device_destructors)) {
    r = ctx_.device.ModuleGetFunction(&ctx_.ctor_dtor_kernel, ctx_.module, kCtorDtorKernel);
  }
  if (r != CuResult::kSuccess) {
    ctx_.Error(DriverCall::kModuleLoad, r);
    FatalUnlocking(kNoRegion, r, "Cannot map target functions or variables");
  }
  ctx_.has_constructors = device_constructors;
  ctx_.has_destructors = device_destructors;
  // gomp_init_device marks the device initialised only after its images
  // load: if a constructor fails, the device stays open but uninitialised,
  // and the exit path (gomp_target_fini) closes nothing.
  if (!policy_->OnImageLoad()) {
    FatalUnlocking(kNoRegion, CuResult::kUnknown, "Cannot map target functions or variables");
  }
  state_.Write() = State::kLoaded;
  device_lock_->Unlock();
}

bool Runtime::UsableLocked() {
  if (state_.Read() == State::kLoaded) return true;
  device_lock_->Unlock();
  return false;
}

void Runtime::FatalUnlocking(RegionId region, CuResult code, absl::string_view message) {
  device_lock_->Unlock();
  ctx_.Fatal(region, code, message);
}

void Runtime::Run(const RegionSpec& spec, DevicePtr device_ptr) {
  RegionSpec region = spec;
  region.device_ptr = device_ptr;
  // GOMP_target_ext looks the device up (resolve_device) and then the
  // region's kernel (gomp_get_target_fn_addr), each only reading the device's
  // state under the device lock and falling back to the host when the device
  // is finalized. One section stands for both: nothing between them differs
  // in outcome.
  const State state = LookUp();
  if (state == State::kOpen) {
    // An image load that failed left the device uninitialised: resolve_device
    // initialises it again (gomp_init_device), and the plugin refuses a
    // device it has open (GOMP_OFFLOAD_init_device).
    ctx_.Fatal(region.id, CuResult::kUnknown, "device initialization failed");
  }
  if (state == State::kNew) {
    ctx_.Fatal(region.id, CuResult::kInvalidContext,
               absl::StrFormat("run of region %d: no image loaded on an open device", region.id));
  }
  if (state == State::kClosed) {
    RunOnHost(region.id);
    return;
  }
  // gomp_map_vars: one block for the variable table and the variables. An
  // is_device_ptr pointer is a table slot (GOMP_MAP_FIRSTPRIVATE_INT: its
  // value inlined, nothing copied besides the table). With nothing to map it
  // returns before taking the device lock.
  DevicePtr vars = 0;
  bool mapped = false;
  if (region.TableEntries() > 0) {
    device_lock_->Lock();
    if (!UsableLocked()) {
      // Finalized since the look-up: gomp_map_vars_internal returns NULL.
      // GCC 12.2's GOMP_target_ext calls run_func all the same (with the
      // host addresses) and unmaps nothing; 0003 falls back to the host.
      if (!ctx_.options.shipped_target) {
        RunOnHost(region.id);
        return;
      }
    } else {
      vars = MapLocked(region);
      mapped = true;
    }
  }
  if (ctx_.options.shipped_target) EnterPlugin(/*locked=*/false);
  ctx_.observer.RegionBegin(region.id, region.StacksBytes());
  policy_->Run(region, vars);
  ctx_.observer.RegionEnd(region.id);
  if (!mapped) return;
  // gomp_unmap_vars: copy back, then free the block.
  device_lock_->Lock();
  if (!UsableLocked()) return;  // finalized meanwhile: reclaimed with the context
  for (std::uint32_t i = 0; i < region.mapped_vars; ++i) {
    if (!policy_->CopyFromDevice(vars + i * kMappedVarBytes, kMappedVarBytes)) {
      FatalUnlocking(region.id, CuResult::kUnknown, "Copying of dev object to host object failed");
    }
  }
  if (!policy_->DeviceFree(vars)) {
    FatalUnlocking(region.id, CuResult::kUnknown, "error in freeing device memory block");
  }
  device_lock_->Unlock();
}

DevicePtr Runtime::MapLocked(const RegionSpec& region) {
  DevicePtr vars = AllocateLocked(region.MappingBytes());
  if (vars == 0) {
    FatalUnlocking(region.id, CuResult::kOutOfMemory, "device memory allocation fail");
  }
  for (std::uint32_t i = 0; i <= region.mapped_vars; ++i) {
    // The variables, then the table.
    const std::uint64_t bytes =
        i < region.mapped_vars ? kMappedVarBytes : region.TableEntries() * 8;
    if (!policy_->CopyToDevice(vars + i * kMappedVarBytes, bytes)) {
      FatalUnlocking(region.id, CuResult::kUnknown, "Copying of host object to dev object failed");
    }
  }
  device_lock_->Unlock();
  return vars;
}

void Runtime::EnterPlugin(bool locked) {
  if (locked) {
    if (state_.Read() != State::kClosed) return;
  } else {
    state_.Snapshot();  // the read of ptx_devices, racing with the close
  }
  if (device_table_freed_.load(std::memory_order_acquire)) ctx_.host.Crash(SIGSEGV);
}

Runtime::State Runtime::LookUp() {
  State state = State::kClosed;
  device_lock_->ReadUnder([&] { state = state_.Read(); });
  return state;
}

void Runtime::RunOnHost(RegionId region) {
  // libgomp runs a region of a finalized device on the host, whose code this
  // testbed does not model.
  ctx_.observer.RegionBegin(region, 0);
  ctx_.observer.RegionEnd(region);
}

DevicePtr Runtime::AllocateLocked(std::uint64_t bytes) {
  const DevicePtr ptr = policy_->DeviceAlloc(bytes);
  // The cache's size in the same step as the policy's last driver call (a
  // failed cuMemAlloc, whose footprint reads the device's memory).
  if (ptr == 0) ctx_.observer.AllocationFailed(bytes, policy_->CachedBytes());
  return ptr;
}

void Runtime::RememberLocked(DevicePtr ptr, std::uint64_t bytes) {
  user_allocations_.Write()[ptr] = bytes;
}

bool Runtime::ForgetLocked(DevicePtr ptr, std::uint64_t* bytes) {
  auto& allocations = user_allocations_.Write();
  auto it = allocations.find(ptr);
  if (it == allocations.end()) return false;
  if (bytes != nullptr) *bytes = it->second;
  allocations.erase(it);
  return true;
}

DevicePtr Runtime::DeviceAlloc(std::uint64_t bytes) {
  if (ctx_.options.shipped_target) {
    // GCC 12.2's omp_target_alloc: resolve_device, then the plugin under the
    // device lock without a second look at the state.
    if (LookUp() != State::kLoaded) return 0;
    device_lock_->Lock();
    EnterPlugin(/*locked=*/true);
  } else {
    device_lock_->Lock();
    if (!UsableLocked()) return 0;  // omp_target_alloc: NULL
  }
  DevicePtr ptr = AllocateLocked(bytes);
  if (ptr != 0) RememberLocked(ptr, bytes);
  device_lock_->Unlock();
  return ptr;
}

void Runtime::DeviceFree(DevicePtr ptr) {
  if (ptr == 0) return;
  // GCC 12.2's omp_target_free: resolve_device, then gomp_free_device_memory
  // under the device lock without a second look at the state.
  if (ctx_.options.shipped_target && LookUp() != State::kLoaded) return;
  device_lock_->Lock();
  const bool known = ForgetLocked(ptr, nullptr);
  if (ctx_.options.shipped_target) {
    EnterPlugin(/*locked=*/true);
  } else if (!UsableLocked()) {
    return;  // reclaimed with the context
  }
  if (!known) {
    FatalUnlocking(kNoRegion, CuResult::kInvalidValue,
                   absl::StrFormat("device_free: 0x%x is not a live device pointer", ptr));
  }
  if (!policy_->DeviceFree(ptr)) {
    FatalUnlocking(kNoRegion, CuResult::kUnknown, "error in freeing device memory block");
  }
  device_lock_->Unlock();
}

DevicePtr Runtime::EnterData(std::uint64_t bytes) {
  device_lock_->Lock();
  if (!UsableLocked()) return 0;
  DevicePtr ptr = AllocateLocked(bytes);
  if (ptr == 0) {
    FatalUnlocking(kNoRegion, CuResult::kOutOfMemory, "device memory allocation fail");
  }
  if (!policy_->CopyToDevice(ptr, bytes)) {
    FatalUnlocking(kNoRegion, CuResult::kUnknown, "Copying of host object to dev object failed");
  }
  RememberLocked(ptr, bytes);
  device_lock_->Unlock();
  return ptr;
}

void Runtime::ExitData(DevicePtr ptr) {
  if (ptr == 0) return;
  device_lock_->Lock();
  std::uint64_t bytes = 0;
  if (!ForgetLocked(ptr, &bytes)) {  // not present: nothing to do
    device_lock_->Unlock();
    return;
  }
  if (!UsableLocked()) return;
  if (!policy_->CopyFromDevice(ptr, bytes)) {
    FatalUnlocking(kNoRegion, CuResult::kUnknown, "Copying of dev object to host object failed");
  }
  if (!policy_->DeviceFree(ptr)) {
    FatalUnlocking(kNoRegion, CuResult::kUnknown, "error in freeing device memory block");
  }
  device_lock_->Unlock();
}

void Runtime::Update(DevicePtr ptr) {
  if (ptr == 0) return;
  device_lock_->Lock();
  std::uint64_t bytes = 0;
  {
    const auto& allocations = user_allocations_.Read();
    auto it = allocations.find(ptr);
    if (it == allocations.end()) {  // not present
      device_lock_->Unlock();
      return;
    }
    bytes = it->second;
  }
  if (!UsableLocked()) return;
  if (!policy_->CopyToDevice(ptr, bytes)) {
    FatalUnlocking(kNoRegion, CuResult::kUnknown, "Copying of host object to dev object failed");
  }
  device_lock_->Unlock();
}

void Runtime::CloseDevice() {
  device_lock_->Lock();
  const State state = state_.Read();
  bool ok = true;
  // gomp_target_fini finalises an initialised device only: one whose image
  // load failed is left open.
  if (state == State::kLoaded) {
    ok = policy_->Close();
    if (ok) {
      CuResult r = ctx_.device.CtxDestroy();
      if (r != CuResult::kSuccess) {
        ctx_.Error(DriverCall::kCtxDestroy, r);
        ok = false;
      }
    }
    // GOMP_OFFLOAD_fini_device empties the device's entry, and frees the
    // table with the last device, only once nvptx_close_device succeeded.
    if (ok) device_table_freed_.store(true, std::memory_order_release);
    state_.Write() = State::kClosed;  // GOMP_DEVICE_FINALIZED, whatever happened
  }
  device_lock_->Unlock();
  if (!ok) ctx_.Fatal(kNoRegion, CuResult::kUnknown, "device finalization failed");
}

std::uint64_t Runtime::UserBytesLive() const {
  std::uint64_t total = 0;
  for (const auto& [ptr, bytes] : user_allocations_.Read()) total += bytes;
  return total;
}

}  // namespace stackcheck
