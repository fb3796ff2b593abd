// CudaDevice's streams, stream callbacks and host functions (run through
// trampolines that mark the driver's callback thread, SEM-07), events, and
// the stream-ordered writes to host memory.
#include <memory>

#include "absl/synchronization/mutex.h"
#include "real/cuda_device.h"

namespace stackcheck::real {
namespace {

thread_local bool in_callback_context = false;

}  // namespace

struct CudaDevice::CallbackThunk {
  CudaDevice* device;
  StreamHandle stream;
  StreamCallbackFn callback;  // exactly one of callback / host_fn is set
  HostFn host_fn;
  void* user_data;
};

bool CudaDevice::InCallbackContext() { return in_callback_context; }

// --- streams ---

CuResult CudaDevice::StreamCreate(StreamHandle* stream, StreamFlags flags) {
  Enter(DriverCall::kStreamCreate);
  CUstream s = nullptr;
  const CUresult r = api_.cuStreamCreate(
      &s, flags == StreamFlags::kNonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT);
  if (r != CUDA_SUCCESS) return R(r);
  absl::MutexLock lock(&mu_);
  *stream = streams_.Add(s);
  return CuResult::kSuccess;
}

CuResult CudaDevice::StreamDestroy(StreamHandle stream) {
  Enter(DriverCall::kStreamDestroy);
  CUstream s = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!streams_.Take(stream, &s)) return CuResult::kInvalidHandle;
  }
  return R(api_.cuStreamDestroy(s));
}

CuResult CudaDevice::StreamSynchronize(StreamHandle stream) {
  Enter(DriverCall::kStreamSynchronize);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  return R(api_.cuStreamSynchronize(s));
}

CuResult CudaDevice::StreamQuery(StreamHandle stream) {
  Enter(DriverCall::kStreamQuery);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  return R(api_.cuStreamQuery(s));
}

void CUDA_CB CudaDevice::StreamCallbackTrampoline(CUstream, CUresult status, void* p) {
  std::unique_ptr<CallbackThunk> thunk(static_cast<CallbackThunk*>(p));
  {
    absl::MutexLock lock(&thunk->device->mu_);
    ++thunk->device->ledger_.callbacks_run;
    if (status != CUDA_SUCCESS) ++thunk->device->ledger_.callbacks_run_with_error;
  }
  in_callback_context = true;
  thunk->callback(thunk->stream, R(status), thunk->user_data);
  in_callback_context = false;
}

void CUDA_CB CudaDevice::HostFnTrampoline(void* p) {
  std::unique_ptr<CallbackThunk> thunk(static_cast<CallbackThunk*>(p));
  {
    absl::MutexLock lock(&thunk->device->mu_);
    ++thunk->device->ledger_.host_fns_run;
  }
  in_callback_context = true;
  thunk->host_fn(thunk->user_data);
  in_callback_context = false;
}

CuResult CudaDevice::StreamAddCallback(StreamHandle stream, StreamCallbackFn fn, void* user_data) {
  Enter(DriverCall::kStreamAddCallback);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  auto thunk = std::make_unique<CallbackThunk>(CallbackThunk{this, stream, fn, nullptr, user_data});
  const CUresult r = api_.cuStreamAddCallback(s, &StreamCallbackTrampoline, thunk.get(), 0);
  if (r != CUDA_SUCCESS) return R(r);  // refused: it will never run (SEM-06)
  thunk.release();                     // owned by the trampoline from here
  absl::MutexLock lock(&mu_);
  ++ledger_.callbacks_enqueued;
  return CuResult::kSuccess;
}

CuResult CudaDevice::LaunchHostFunc(StreamHandle stream, HostFn fn, void* user_data) {
  Enter(DriverCall::kLaunchHostFunc);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  auto thunk = std::make_unique<CallbackThunk>(CallbackThunk{this, stream, nullptr, fn, user_data});
  const CUresult r = api_.cuLaunchHostFunc(s, &HostFnTrampoline, thunk.get());
  if (r != CUDA_SUCCESS) return R(r);
  // A host function dropped by a sticky error (SEM-06) never frees its thunk:
  // a few bytes, once per process, which then exits.
  thunk.release();
  absl::MutexLock lock(&mu_);
  ++ledger_.host_fns_enqueued;
  return CuResult::kSuccess;
}

// --- events ---

CuResult CudaDevice::EventCreate(EventHandle* event) {
  Enter(DriverCall::kEventCreate);
  CUevent e = nullptr;
  // No timing: the runtime uses events for completion only, and timing
  // events cost more per record.
  const CUresult r = api_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
  if (r != CUDA_SUCCESS) return R(r);
  absl::MutexLock lock(&mu_);
  *event = events_.Add(e);
  return CuResult::kSuccess;
}

CuResult CudaDevice::EventDestroy(EventHandle event) {
  Enter(DriverCall::kEventDestroy);
  CUevent e = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!events_.Take(event, &e)) return CuResult::kInvalidHandle;
  }
  return R(api_.cuEventDestroy(e));
}

CuResult CudaDevice::EventRecord(EventHandle event, StreamHandle stream) {
  Enter(DriverCall::kEventRecord);
  CUevent e;
  CUstream s;
  if (!LookupEvent(event, &e) || !LookupStream(stream, &s)) {
    return CuResult::kInvalidHandle;
  }
  return R(api_.cuEventRecord(e, s));
}

CuResult CudaDevice::EventQuery(EventHandle event) {
  Enter(DriverCall::kEventQuery);
  CUevent e;
  if (!LookupEvent(event, &e)) return CuResult::kInvalidHandle;
  return R(api_.cuEventQuery(e));
}

CuResult CudaDevice::EventSynchronize(EventHandle event) {
  Enter(DriverCall::kEventSynchronize);
  CUevent e;
  if (!LookupEvent(event, &e)) return CuResult::kInvalidHandle;
  return R(api_.cuEventSynchronize(e));
}

CuResult CudaDevice::StreamWaitEvent(StreamHandle stream, EventHandle event) {
  Enter(DriverCall::kStreamWaitEvent);
  CUevent e;
  CUstream s;
  if (!LookupEvent(event, &e) || !LookupStream(stream, &s)) {
    return CuResult::kInvalidHandle;
  }
  return R(api_.cuStreamWaitEvent(s, e, 0));
}

// --- stream-ordered writes to host memory (EXT-01) ---

CuResult CudaDevice::HostWordAlloc(HostWordHandle* word) {
  Enter(DriverCall::kMemHostAlloc);
  if (word == nullptr) return CuResult::kInvalidValue;
  void* host = nullptr;
  const CUresult r = api_.cuMemHostAlloc(&host, sizeof(std::uint32_t),
                                         CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  if (r != CUDA_SUCCESS) return R(r);
  // StreamWriteValue32 writes through the host address, which unified
  // addressing (every 64-bit platform the driver supports) makes the device
  // address too; checked here rather than assumed.
  CUdeviceptr device_address = 0;
  if (api_.cuMemHostGetDevicePointer(&device_address, host, 0) != CUDA_SUCCESS ||
      device_address != reinterpret_cast<CUdeviceptr>(host)) {
    api_.cuMemFreeHost(host);
    return CuResult::kNotSupported;
  }
  auto* w = static_cast<std::uint32_t*>(host);
  __atomic_store_n(w, 0u, __ATOMIC_RELEASE);
  absl::MutexLock lock(&mu_);
  *word = host_words_.Add(w);
  return CuResult::kSuccess;
}

CuResult CudaDevice::HostWordFree(HostWordHandle word) {
  Enter(DriverCall::kMemFreeHost);
  std::uint32_t* w = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!host_words_.Take(word, &w)) return CuResult::kInvalidValue;
  }
  return R(api_.cuMemFreeHost(w));
}

CuResult CudaDevice::StreamWriteValue32(StreamHandle stream, HostWordHandle word,
                                        std::uint32_t value) {
  Enter(DriverCall::kStreamWriteValue32);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  std::uint32_t* w = LookupHostWord(word);
  if (w == nullptr) return CuResult::kInvalidValue;
  // The mapped host address is the device address (checked at allocation).
  const auto address = reinterpret_cast<CUdeviceptr>(w);
  if (!write_value_unsupported_.load(std::memory_order_relaxed)) {
    const CUresult r = api_.cuStreamWriteValue32(s, address, value, CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r != CUDA_ERROR_NOT_SUPPORTED) return R(r);
    write_value_unsupported_.store(true, std::memory_order_relaxed);
  }
  return R(api_.cuMemsetD32Async(address, value, 1, s));
}

std::uint32_t CudaDevice::HostWordLoad(HostWordHandle word) {
  std::uint32_t* w = LookupHostWord(word);
  return w == nullptr ? 0 : __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

}  // namespace stackcheck::real
