#include "real/shaken_device.h"

#include <memory>

#include "absl/strings/str_cat.h"

namespace stackcheck::real {

struct ShakenDevice::Wrapped {
  ShakenDevice* self;
  StreamCallbackFn callback;
  HostFn host_fn;
  void* user_data;
};

template <typename F>
CuResult ShakenDevice::Call(DriverCall name, F&& call) {
  jitter_.Point();
  log_.Begin(DriverCallName(name));
  const CuResult r = call();
  log_.End();
  return r;
}

void ShakenDevice::Callback(StreamHandle stream, CuResult status, void* p) {
  std::unique_ptr<Wrapped> w(static_cast<Wrapped*>(p));
  w->self->log_.NameThread("driver-callback");
  w->self->jitter_.Point();
  w->self->log_.Begin(absl::StrCat("stream callback (status ", CuResultName(status), ")"));
  w->callback(stream, status, w->user_data);
  w->self->log_.End();
}

void ShakenDevice::HostFunction(void* p) {
  std::unique_ptr<Wrapped> w(static_cast<Wrapped*>(p));
  w->self->log_.NameThread("driver-callback");
  w->self->jitter_.Point();
  w->self->log_.Begin("host function");
  w->host_fn(w->user_data);
  w->self->log_.End();
}

CuResult ShakenDevice::Init() {
  return Call(DriverCall::kInit, [&] { return inner_.Init(); });
}
CuResult ShakenDevice::CtxCreate() {
  return Call(DriverCall::kCtxCreate, [&] { return inner_.CtxCreate(); });
}
CuResult ShakenDevice::CtxDestroy() {
  return Call(DriverCall::kCtxDestroy, [&] { return inner_.CtxDestroy(); });
}
CuResult ShakenDevice::CtxSynchronize() {
  return Call(DriverCall::kCtxSynchronize, [&] { return inner_.CtxSynchronize(); });
}
CuResult ShakenDevice::MemAlloc(DevicePtr* ptr, std::uint64_t bytes) {
  return Call(DriverCall::kMemAlloc, [&] {
    if (alloc_gate_ && alloc_gate_(bytes)) return CuResult::kOutOfMemory;
    return inner_.MemAlloc(ptr, bytes);
  });
}
CuResult ShakenDevice::MemFree(DevicePtr ptr) {
  return Call(DriverCall::kMemFree, [&] { return inner_.MemFree(ptr); });
}
CuResult ShakenDevice::MemcpyHtoD(DevicePtr dst, const void* src, std::uint64_t bytes) {
  return Call(DriverCall::kMemcpyHtoD, [&] { return inner_.MemcpyHtoD(dst, src, bytes); });
}
CuResult ShakenDevice::MemcpyDtoH(void* dst, DevicePtr src, std::uint64_t bytes) {
  return Call(DriverCall::kMemcpyDtoH, [&] { return inner_.MemcpyDtoH(dst, src, bytes); });
}
CuResult ShakenDevice::MemGetInfo(MemInfo* info) {
  return Call(DriverCall::kMemGetInfo, [&] { return inner_.MemGetInfo(info); });
}
CuResult ShakenDevice::MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes, StreamHandle stream) {
  return Call(DriverCall::kMemAllocAsync, [&] { return inner_.MemAllocAsync(ptr, bytes, stream); });
}
CuResult ShakenDevice::MemFreeAsync(DevicePtr ptr, StreamHandle stream) {
  return Call(DriverCall::kMemFreeAsync, [&] { return inner_.MemFreeAsync(ptr, stream); });
}
CuResult ShakenDevice::ModuleLoad(ModuleHandle* module, absl::string_view image) {
  return Call(DriverCall::kModuleLoad, [&] { return inner_.ModuleLoad(module, image); });
}
CuResult ShakenDevice::ModuleUnload(ModuleHandle module) {
  return Call(DriverCall::kModuleUnload, [&] { return inner_.ModuleUnload(module); });
}
CuResult ShakenDevice::ModuleGetFunction(FunctionHandle* function, ModuleHandle module,
                                         absl::string_view name) {
  return Call(DriverCall::kModuleGetFunction,
              [&] { return inner_.ModuleGetFunction(function, module, name); });
}
CuResult ShakenDevice::LaunchKernel(FunctionHandle function, Dim3 grid, Dim3 block,
                                    const KernelArgs& args, StreamHandle stream) {
  const CuResult r = Call(DriverCall::kLaunchKernel, [&] {
    if (launch_gate_ && launch_gate_()) return CuResult::kLaunchOutOfResources;
    return inner_.LaunchKernel(function, grid, block, args, stream);
  });
  if (launch_hook_) launch_hook_(args, stream, r);
  return r;
}
CuResult ShakenDevice::StreamCreate(StreamHandle* stream, StreamFlags flags) {
  return Call(DriverCall::kStreamCreate, [&] { return inner_.StreamCreate(stream, flags); });
}
CuResult ShakenDevice::StreamDestroy(StreamHandle stream) {
  return Call(DriverCall::kStreamDestroy, [&] { return inner_.StreamDestroy(stream); });
}
CuResult ShakenDevice::StreamSynchronize(StreamHandle stream) {
  return Call(DriverCall::kStreamSynchronize, [&] { return inner_.StreamSynchronize(stream); });
}
CuResult ShakenDevice::StreamQuery(StreamHandle stream) {
  return Call(DriverCall::kStreamQuery, [&] { return inner_.StreamQuery(stream); });
}
CuResult ShakenDevice::StreamAddCallback(StreamHandle stream, StreamCallbackFn fn,
                                         void* user_data) {
  auto w = std::make_unique<Wrapped>(Wrapped{this, fn, nullptr, user_data});
  const CuResult r = Call(DriverCall::kStreamAddCallback, [&] {
    return inner_.StreamAddCallback(stream, &ShakenDevice::Callback, w.get());
  });
  if (r == CuResult::kSuccess) w.release();  // the callback owns it now
  return r;
}
CuResult ShakenDevice::LaunchHostFunc(StreamHandle stream, HostFn fn, void* user_data) {
  auto w = std::make_unique<Wrapped>(Wrapped{this, nullptr, fn, user_data});
  const CuResult r = Call(DriverCall::kLaunchHostFunc, [&] {
    return inner_.LaunchHostFunc(stream, &ShakenDevice::HostFunction, w.get());
  });
  // Dropped on a sticky error (SEM-06): then it leaks, once, before exit.
  if (r == CuResult::kSuccess) w.release();
  return r;
}
CuResult ShakenDevice::EventCreate(EventHandle* event) {
  return Call(DriverCall::kEventCreate, [&] { return inner_.EventCreate(event); });
}
CuResult ShakenDevice::EventDestroy(EventHandle event) {
  return Call(DriverCall::kEventDestroy, [&] { return inner_.EventDestroy(event); });
}
CuResult ShakenDevice::EventRecord(EventHandle event, StreamHandle stream) {
  return Call(DriverCall::kEventRecord, [&] { return inner_.EventRecord(event, stream); });
}
CuResult ShakenDevice::EventQuery(EventHandle event) {
  return Call(DriverCall::kEventQuery, [&] { return inner_.EventQuery(event); });
}
CuResult ShakenDevice::EventSynchronize(EventHandle event) {
  return Call(DriverCall::kEventSynchronize, [&] { return inner_.EventSynchronize(event); });
}
CuResult ShakenDevice::StreamWaitEvent(StreamHandle stream, EventHandle event) {
  return Call(DriverCall::kStreamWaitEvent, [&] { return inner_.StreamWaitEvent(stream, event); });
}
CuResult ShakenDevice::HostWordAlloc(HostWordHandle* word) {
  return Call(DriverCall::kMemHostAlloc, [&] { return inner_.HostWordAlloc(word); });
}
CuResult ShakenDevice::HostWordFree(HostWordHandle word) {
  return Call(DriverCall::kMemFreeHost, [&] { return inner_.HostWordFree(word); });
}
CuResult ShakenDevice::StreamWriteValue32(StreamHandle stream, HostWordHandle word,
                                          std::uint32_t value) {
  return Call(DriverCall::kStreamWriteValue32,
              [&] { return inner_.StreamWriteValue32(stream, word, value); });
}
std::uint32_t ShakenDevice::HostWordLoad(HostWordHandle word) { return inner_.HostWordLoad(word); }

}  // namespace stackcheck::real
