// The offload runtime for one device, shaped like libgomp's target.c above
// its nvptx plugin: open the device, load the image, run target regions (map,
// run, unmap), the program's own device memory (omp_target_alloc/free,
// target enter/exit data, target update), and close the device at exit. What
// happens to the soft-stack block is the Policy's (the plugin's part); the
// lifecycle, the device lock and the fatal path are here, written once.
//
// The device lock is libgomp's devicep->lock: held around every allocation
// and copy that mapping does, around omp_target_alloc/free, image load and
// the exit handler's close, and not around the launch (GOMP_OFFLOAD_run). A
// failure under it is raised as a fatal error after releasing it, as
// gomp_map_vars and gomp_copy_host2dev do; omp_target_alloc returns NULL
// instead. Fatal errors tell the observer (FatalReported) and call
// Host::Exit(1), which runs the exit handlers (one of them, registered by
// OpenDevice, closes this device: gomp_target_fini) and ends the (simulated)
// process. Only construction problems are absl::Status.
//
// Ownership: hold it in a std::shared_ptr where other threads (or the
// simulator's unwinding fibers) may still run its code when the owner's stack
// goes away; the exit handler then keeps it alive while it closes the device.
//
// Thread safety: every call but OpenDevice and LoadImage (which come first,
// on one thread) may be made from any host threads at once, as libgomp's are.
#ifndef STACKCHECK_CORE_RUNTIME_H_
#define STACKCHECK_CORE_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>
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
#include "core/shared.h"

namespace stackcheck {

class Runtime : public std::enable_shared_from_this<Runtime> {
 public:
  Runtime(Device& device, Host& host, RuntimeObserver& observer, const PolicyInfo& policy,
          const RuntimeOptions& options = {});
  // Looks the policy up by name: NotFound lists the known names.
  static absl::StatusOr<std::unique_ptr<Runtime>> Create(Device& device, Host& host,
                                                         RuntimeObserver& observer,
                                                         absl::string_view policy_name,
                                                         const RuntimeOptions& options = {});

  // Does not touch the device: a process that ends without closing leaves
  // that to the driver, as a real one does.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // cuInit, the primary context, and the exit handler that closes the device
  // (as libgomp registers gomp_target_fini with atexit).
  void OpenDevice();
  // Loads the "stackcheck" image under the device lock; with constructors,
  // the policy runs them now (and the destructors at close). A failure is
  // fatal, raised after releasing the device lock.
  void LoadImage(bool device_constructors, bool device_destructors);
  // `#pragma omp target`: maps the region's variables (one block, copied in,
  // device lock held), runs the region (GOMP_OFFLOAD_run, no device lock),
  // unmaps (copy back, free, device lock held). On a device finalized at the
  // look-up the region runs on the host (nothing is launched); one finalized
  // between the look-up and the mapping too, unless shipped_target (see
  // RuntimeOptions). `device_ptr`: a pointer
  // DeviceAlloc returned that the region's kernel uses (is_device_ptr),
  // carried in its variable table; 0: none.
  void Run(const RegionSpec& region, DevicePtr device_ptr = 0);
  // omp_target_alloc: 0 on failure or on a finalized device (with
  // shipped_target, only one finalized before the look-up).
  DevicePtr DeviceAlloc(std::uint64_t bytes);
  // omp_target_free. Fatal for a pointer DeviceAlloc/EnterData did not
  // return or already freed, or a failed free, while the device is open;
  // DeviceFree(0), and any free on a finalized device, do nothing (with
  // shipped_target, only on one finalized before the look-up).
  void DeviceFree(DevicePtr ptr);
  // target enter data map(to:), exit data map(from:), update to(): the
  // device copy of a variable of `bytes`. Failures are fatal.
  DevicePtr EnterData(std::uint64_t bytes);
  void ExitData(DevicePtr ptr);
  void Update(DevicePtr ptr);
  // gomp_target_fini's work for this device: under the device lock, the
  // policy's close (destructors, cache) then the context's destruction,
  // stopping at the first failure; after a failure, once the lock is
  // released, the fatal error "device finalization failed" (exit() again,
  // from inside the exit handlers). Images are not unloaded. Idempotent.
  void CloseDevice();

  const PolicyInfo& policy_info() const { return info_; }
  std::uint64_t CachedBytes() const { return policy_->CachedBytes(); }
  // User allocations not yet freed; only when no other thread uses the
  // runtime (it reads without the device lock).
  std::uint64_t UserBytesLive() const;
  // Errors reported on non-fatal paths, and fatal messages, in order.
  std::vector<std::string> errors() const { return ctx_.errors(); }

 private:
  enum class State { kNew, kOpen, kLoaded, kClosed };

  // True when the device is open for work; false once finalized (the lock
  // is then released). Called with the device lock held.
  bool UsableLocked();
  // A region of a finalized device: begins and ends, nothing launched.
  void RunOnHost(RegionId region);
  // GCC 12.2's plugin entry on a device another thread's exit finalized
  // (RuntimeOptions::shipped_target): GOMP_OFFLOAD_run, GOMP_OFFLOAD_alloc
  // and GOMP_OFFLOAD_free read ptx_devices[ord] first, and a close that
  // succeeded freed that table: the process dies of SIGSEGV. After a close
  // that failed the entry stays, and the call goes on into the policy.
  // `locked`: the caller holds the device lock (omp_target_alloc/free);
  // GOMP_OFFLOAD_run reads without it, a point ordered against the close.
  void EnterPlugin(bool locked);
  // resolve_device's look at the device: its state, read under the device
  // lock in one section (GOMP_target_ext's, and with shipped_target
  // omp_target_alloc/free's).
  State LookUp();
  // Raises `message` as a fatal error after releasing the device lock.
  [[noreturn]] void FatalUnlocking(RegionId region, CuResult code, absl::string_view message);
  // gomp_map_vars's work on a usable device, device lock held: the block,
  // the copies in; releases the lock. Failures are fatal.
  DevicePtr MapLocked(const RegionSpec& region);
  // The policy's device_alloc, device lock held; a failure is told to the
  // observer with the bytes the cache holds (AllocationFailed).
  DevicePtr AllocateLocked(std::uint64_t bytes);
  // Records / forgets a device pointer the program holds; device lock held.
  void RememberLocked(DevicePtr ptr, std::uint64_t bytes);
  bool ForgetLocked(DevicePtr ptr, std::uint64_t* bytes);

  const PolicyInfo& info_;
  RuntimeContext ctx_;
  std::unique_ptr<Policy> policy_;
  // libgomp's device lock (devicep->lock): a Host mutex, so the simulator
  // sees it in schedules, footprints and wait-for cycles.
  std::unique_ptr<Mutex> device_lock_;
  // libgomp's devicep->state: written and read under *device_lock_.
  Shared<State> state_;
  // GOMP_OFFLOAD_fini_device's ptx_devices[n] = NULL and free of the table:
  // set by a close that succeeded, under the device lock; read by
  // EnterPlugin after a snapshot of state_ (the same critical section
  // writes both).
  std::atomic<bool> device_table_freed_{false};
  // When the runtime is not shared-owned, the exit handler reaches it through
  // this cell, which the destructor clears: a handler that outlives the
  // runtime does nothing.
  std::shared_ptr<std::atomic<Runtime*>> exit_handler_target_;

  // The program's device pointers and their sizes, guarded by *device_lock_.
  Shared<absl::flat_hash_map<DevicePtr, std::uint64_t>> user_allocations_;
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_RUNTIME_H_
