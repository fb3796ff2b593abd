// The offload runtime for one device, shaped like libgomp's nvptx plugin:
// open the device, load the image, run target regions, allocate user memory,
// close the device. What happens to the soft-stack block is the Policy's; the
// lifecycle and the fatal path are here, written once for every policy.
//
// Errors are fatal as in libgomp: the runtime tells the observer
// (FatalReported) and calls Host::Exit(1), which runs the exit handlers (one
// of them, registered by OpenDevice, closes this device) and ends the
// (simulated) process. Only construction problems are absl::Status.
//
// Ownership: hold it in a std::shared_ptr where other threads (or the
// simulator's unwinding fibers) may still run its code when the owner's stack
// goes away; the exit handler then keeps it alive while it closes the device.
//
// Thread safety: Run, DeviceAlloc and DeviceFree may be called from any host
// threads at once, as libgomp's are; OpenDevice and LoadImage come first, on
// one thread. CloseDevice is idempotent and safe to call from the exit handler.
#ifndef STACKCHECK_CORE_RUNTIME_H_
#define STACKCHECK_CORE_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/device.h"
#include "core/host.h"
#include "core/observer.h"
#include "core/policies/policy.h"
#include "core/policies/registry.h"
#include "core/scenario.h"

namespace stackcheck {

class Runtime : public std::enable_shared_from_this<Runtime> {
 public:
  Runtime(Device& device, Host& host, RuntimeObserver& observer,
          const PolicyInfo& policy, const RuntimeOptions& options = {});
  // Looks the policy up by name: NotFound lists the known names.
  static absl::StatusOr<std::unique_ptr<Runtime>> Create(
      Device& device, Host& host, RuntimeObserver& observer,
      absl::string_view policy_name, const RuntimeOptions& options = {});

  // Does not touch the device: a process that ends without closing leaves
  // that to the driver, as a real one does.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // cuInit, the primary context, and the exit handler that closes the device
  // (as libgomp registers gomp_target_fini with atexit).
  void OpenDevice();
  // Loads the "stackcheck" image; with constructors/destructors, the policy
  // runs the constructor kernel now and the destructor kernel at close.
  void LoadImage(bool device_constructors, bool device_destructors);
  // One target region (GOMP_OFFLOAD_run). After CloseDevice, as libgomp does
  // for a finalized device, the region falls back to the host (no launch).
  void Run(const RegionSpec& region);
  // User memory (GOMP_OFFLOAD_alloc / free). After each allocation the
  // observer hears CacheHeld(cache bytes, largest need of a running region).
  // Returns 0 only after (or concurrently with) CloseDevice.
  DevicePtr DeviceAlloc(std::uint64_t bytes);
  // Fatal for a pointer DeviceAlloc did not return (or already freed), while
  // the device is open; DeviceFree(0), and any free after close, do nothing.
  void DeviceFree(DevicePtr ptr);
  // Unloads the image (destructor kernels), releases the policy's cache,
  // destroys the context. Idempotent; errors are reported, never fatal,
  // because this usually runs inside the exit handlers.
  void CloseDevice();

  const PolicyInfo& policy_info() const { return info_; }
  std::uint64_t CachedBytes() const { return policy_->CachedBytes(); }
  // User allocations not yet freed.
  std::uint64_t UserBytesLive() const;
  // Errors reported on non-fatal paths, and fatal messages, in order.
  std::vector<std::string> errors() const { return ctx_.errors(); }

 private:
  enum class State { kNew, kOpen, kLoaded, kClosed };

  std::uint64_t LargestRunningNeed() const;

  const PolicyInfo& info_;
  RuntimeContext ctx_;
  std::unique_ptr<Policy> policy_;
  // libgomp's device lock: guards the lifecycle state, never held while a
  // region runs or memory is allocated.
  std::unique_ptr<Mutex> device_lock_;
  // Written under *device_lock_; read without it by Run and the allocators.
  std::atomic<State> state_{State::kNew};
  // When the runtime is not shared-owned, the exit handler reaches it through
  // this cell, which the destructor clears: a handler that outlives the
  // runtime does nothing.
  std::shared_ptr<std::atomic<Runtime*>> exit_handler_target_;
  ModuleHandle module_{};

  // Bookkeeping with no scheduling points inside (never held across a
  // Device or Host call).
  mutable std::mutex books_mu_;
  absl::flat_hash_map<DevicePtr, std::uint64_t> user_allocations_;
  // Stack bytes needed by regions inside Run, for CacheHeld.
  std::vector<std::uint64_t> running_needs_;
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_RUNTIME_H_
