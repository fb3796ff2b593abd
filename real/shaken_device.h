// A Device decorator for hardware runs: before every driver call a random
// delay (Jitter) may shake the interleaving, and the ActivityLog records which
// call each thread is in, so a hang can be reported with each thread's last
// operation. Stream callbacks and host functions are wrapped too: their entry
// is a scheduling point, and the driver's callback thread shows in the log.
#ifndef STACKCHECK_REAL_SHAKEN_DEVICE_H_
#define STACKCHECK_REAL_SHAKEN_DEVICE_H_

#include <functional>

#include "core/device.h"
#include "core/driver_call.h"
#include "real/activity_log.h"
#include "real/jitter.h"

namespace stackcheck::real {

class ShakenDevice final : public Device {
 public:
  // Called on the launching thread after every LaunchKernel, with its result.
  using LaunchHook = std::function<void(const KernelArgs&, StreamHandle, CuResult)>;

  ShakenDevice(Device& inner, Jitter& jitter, ActivityLog& log)
      : inner_(inner), jitter_(jitter), log_(log) {}
  void set_launch_hook(LaunchHook hook) { launch_hook_ = std::move(hook); }
  // Asked before every MemAlloc; returning true fails it with
  // CUDA_ERROR_OUT_OF_MEMORY without calling the driver (fault injection,
  // emulated capacity).
  using AllocGate = std::function<bool(std::uint64_t bytes)>;
  void set_alloc_gate(AllocGate gate) { alloc_gate_ = std::move(gate); }
  // Asked before every LaunchKernel; returning true rejects it with
  // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES without calling the driver (a
  // non-sticky launch failure, fault injection).
  using LaunchGate = std::function<bool()>;
  void set_launch_gate(LaunchGate gate) { launch_gate_ = std::move(gate); }

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
  // A plain load: no delay is injected before it (it is not a driver call).
  std::uint32_t HostWordLoad(HostWordHandle word) override;

 private:
  struct Wrapped;
  template <typename F>
  CuResult Call(DriverCall name, F&& call);
  static void Callback(StreamHandle stream, CuResult status, void* wrapped);
  static void HostFunction(void* wrapped);

  Device& inner_;
  Jitter& jitter_;
  ActivityLog& log_;
  LaunchHook launch_hook_;
  AllocGate alloc_gate_;
  LaunchGate launch_gate_;
};

}  // namespace stackcheck::real

#endif  // STACKCHECK_REAL_SHAKEN_DEVICE_H_
