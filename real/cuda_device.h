// core/device.h on the CUDA Driver API (loaded by real/cuda_entry_points).
//
// One CudaDevice is one GPU and its primary context. Handles are small indices
// into tables of driver objects, so callbacks receive our StreamHandle and
// CuResult rather than CUstream/CUresult. Besides the driver's behaviour it
// keeps what the testbed checks after a run: a ledger of its own allocations
// (leaks at close, frees of unknown pointers), driver calls made from callback
// context (SEM-09), and the kernels' host-mapped corruption report, which stays
// readable after the context is poisoned (SEM-05).
#ifndef STACKCHECK_REAL_CUDA_DEVICE_H_
#define STACKCHECK_REAL_CUDA_DEVICE_H_

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/device.h"
#include "core/driver_call.h"
#include "real/cuda_entry_points.h"
#include "real/handle_table.h"

namespace stackcheck::real {

// The backend's own account of device memory and callbacks.
struct DeviceLedger {
  std::uint64_t allocs = 0;
  std::uint64_t frees = 0;
  std::uint64_t live_blocks = 0;
  std::uint64_t live_bytes = 0;
  std::uint64_t peak_bytes = 0;
  // A successful-looking free of a pointer we never handed out, or a free the
  // driver refused (double free, interior pointer, poisoned context).
  std::uint64_t unknown_frees = 0;
  std::uint64_t failed_frees = 0;
  // Blocks still live when CtxDestroy began: memory the runtime never freed.
  std::uint64_t leaked_blocks_at_destroy = 0;
  std::uint64_t leaked_bytes_at_destroy = 0;
  std::uint64_t destroys = 0;
  // cuMemGetInfo's free bytes just before the last CtxDestroy released the
  // context (the driver-side view of what the runtime still held).
  bool free_at_destroy_known = false;
  std::uint64_t free_at_destroy = 0;
  // SEM-09: driver calls made from inside a callback or host function.
  std::uint64_t calls_from_callback = 0;
  std::string first_call_from_callback;
  // SEM-06/07 bookkeeping.
  std::uint64_t callbacks_enqueued = 0;
  std::uint64_t callbacks_run = 0;
  std::uint64_t callbacks_run_with_error = 0;
  std::uint64_t host_fns_enqueued = 0;
  std::uint64_t host_fns_run = 0;
};

// What the kernels wrote into the host-mapped report.
struct KernelReport {
  std::uint64_t corruptions = 0;  // warps that found a stamp not theirs
  std::uint64_t expected = 0;     // first corrupted warp's own stamp
  std::uint64_t observed = 0;     // and what it found instead
  // Warps that finished their final check (read from device memory, so
  // unknown once the context is poisoned).
  std::uint64_t warps_checked = 0;
  bool warps_checked_known = false;
};

struct DeviceProperties {
  std::string name;
  int ordinal = 0;
  int sm_count = 0;
  int cc_major = 0;
  int cc_minor = 0;
  int driver_version = 0;
};

class CudaDevice final : public Device {
 public:
  // Loads the driver; makes no CUDA call yet. The error is the loader's
  // ("no CUDA driver: libcuda.so.1 not found (...)").
  static absl::StatusOr<std::unique_ptr<CudaDevice>> Create(int ordinal = 0);
  // Does not tear the context down: the owner calls CtxDestroy (or exits).
  ~CudaDevice() override;

  CuResult Init() override;
  CuResult CtxCreate() override;
  CuResult CtxDestroy() override;
  CuResult CtxSynchronize() override;

  CuResult MemAlloc(DevicePtr* ptr, std::uint64_t bytes) override;
  CuResult MemFree(DevicePtr ptr) override;
  CuResult MemGetInfo(MemInfo* info) override;
  CuResult MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes, StreamHandle stream) override;
  CuResult MemFreeAsync(DevicePtr ptr, StreamHandle stream) override;
  CuResult MemcpyHtoD(DevicePtr dst, const void* src, std::uint64_t bytes) override;
  CuResult MemcpyDtoH(void* dst, DevicePtr src, std::uint64_t bytes) override;

  CuResult ModuleLoad(ModuleHandle* module, absl::string_view image) override;
  CuResult ModuleUnload(ModuleHandle module) override;
  CuResult ModuleGetFunction(FunctionHandle* function, ModuleHandle module,
                             absl::string_view name) override;
  CuResult LaunchKernel(FunctionHandle function, Dim3 grid, Dim3 block, const KernelArgs& args,
                        StreamHandle stream) override;

  CuResult StreamCreate(StreamHandle* stream, StreamFlags flags) override;
  CuResult StreamDestroy(StreamHandle stream) override;
  CuResult StreamSynchronize(StreamHandle stream) override;
  CuResult StreamQuery(StreamHandle stream) override;
  CuResult StreamAddCallback(StreamHandle stream, StreamCallbackFn fn, void* user_data) override;
  CuResult LaunchHostFunc(StreamHandle stream, HostFn fn, void* user_data) override;

  CuResult EventCreate(EventHandle* event) override;
  CuResult EventDestroy(EventHandle event) override;
  CuResult EventRecord(EventHandle event, StreamHandle stream) override;
  CuResult EventQuery(EventHandle event) override;
  CuResult EventSynchronize(EventHandle event) override;
  CuResult StreamWaitEvent(StreamHandle stream, EventHandle event) override;

  CuResult HostWordAlloc(HostWordHandle* word) override;
  CuResult HostWordFree(HostWordHandle word) override;
  CuResult StreamWriteValue32(StreamHandle stream, HostWordHandle word,
                              std::uint32_t value) override;
  std::uint32_t HostWordLoad(HostWordHandle word) override;

  // --- for the testbed, beyond core/device.h ---
  DeviceLedger Ledger() const;
  // Reads the kernels' report (the corruption part is plain host reads, so it
  // works when poisoned and while kernels run). After CtxDestroy: its
  // contents at that moment.
  // `device_counter` = false reads host memory only: never blocks, for the
  // watchdog (warps_checked is then unknown).
  KernelReport ReadKernelReport(bool device_counter = true);
  void ResetKernelReport();
  // After Init.
  absl::StatusOr<DeviceProperties> Properties();
  // Resident blocks per SM of `function` with block (32, warps, 1): the
  // occupancy that sets libgomp's default team count.
  absl::StatusOr<int> MaxActiveBlocksPerSm(FunctionHandle function, int warps);
  const CudaEntryPoints& api() const { return api_; }
  // True on a thread that is inside one of our callback/host-function
  // trampolines (the driver's callback thread, SEM-07).
  static bool InCallbackContext();

 private:
  struct CallbackThunk;
  CudaDevice(const CudaEntryPoints& api, int ordinal);
  // The driver's result as core's CuResult (the same numbers).
  static CuResult R(CUresult r) { return static_cast<CuResult>(r); }

  // Every entry point starts here: counts SEM-09 calls and makes our context
  // current on the calling thread (never from callback context, where the
  // driver would refuse it and the call itself is the finding). A Device
  // method names its call from core's table; the testbed's extras by hand.
  void Enter(DriverCall call) { Enter(DriverCallName(call)); }
  void Enter(absl::string_view call);
  static void CUDA_CB StreamCallbackTrampoline(CUstream stream, CUresult status, void* thunk);
  static void CUDA_CB HostFnTrampoline(void* thunk);

  bool LookupStream(StreamHandle h, CUstream* out) const;
  bool LookupEvent(EventHandle h, CUevent* out) const;
  // A host word's pinned host address; null if the handle is not live.
  std::uint32_t* LookupHostWord(HostWordHandle h) const;

  const CudaEntryPoints& api_;
  const int ordinal_;
  CUdevice cu_device_ = 0;
  std::atomic<CUcontext> context_{nullptr};
  // Host-mapped kernel report (cuMemHostAlloc, DEVICEMAP).
  std::uint64_t* report_host_ = nullptr;
  CUdeviceptr report_device_ = 0;
  // 16 bytes of device memory, not in the ledger: the warps-checked count and
  // the completion block counter (EXT-02).
  CUdeviceptr warps_checked_ = 0;
  KernelReport report_at_destroy_;  // what the report held at CtxDestroy

  mutable absl::Mutex mu_;
  HandleTable<StreamHandle, CUstream> streams_ ABSL_GUARDED_BY(mu_);
  HandleTable<EventHandle, CUevent> events_ ABSL_GUARDED_BY(mu_);
  HandleTable<ModuleHandle, CUmodule> modules_ ABSL_GUARDED_BY(mu_);
  HandleTable<FunctionHandle, CUfunction> functions_ ABSL_GUARDED_BY(mu_);
  // cuMemHostAlloc'ed words.
  HandleTable<HostWordHandle, std::uint32_t*> host_words_ ABSL_GUARDED_BY(mu_);
  // cuStreamWriteValue32 said NOT_SUPPORTED once: the writes are made with
  // cuMemsetD32Async instead, which is stream-ordered device work as well.
  std::atomic<bool> write_value_unsupported_{false};
  absl::flat_hash_map<DevicePtr, std::uint64_t> live_ ABSL_GUARDED_BY(mu_);
  DeviceLedger ledger_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_CUDA_DEVICE_H_
