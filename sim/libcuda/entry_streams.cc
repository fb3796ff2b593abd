// The entry points of streams, host callbacks and events.

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "sim/libcuda/driver_state.h"
#include "sim/program/callback_call.h"

namespace stackcheck::libcuda {

namespace {

struct CallbackCall {
  CUstreamCallback fn;
  void* user_data;
};

STACKCHECK_PROGRAM_CALLBACK_CALLER void CallProgramCallback(const CallbackCall& call,
                                                            CUstream stream, CUresult status) {
  call.fn(stream, status, call.user_data);
  STACKCHECK_AFTER_PROGRAM_CALLBACK();
}

void CallbackTrampoline(stackcheck::StreamHandle stream, CuResult status, void* data) {
  std::unique_ptr<CallbackCall> call(static_cast<CallbackCall*>(data));
  CallProgramCallback(*call, FromSim(stream), Code(status));
}

}  // namespace

STACKCHECK_CUDA_EXPORT CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (stream == nullptr) return Code(CuResult::kInvalidValue);
  stackcheck::StreamHandle s{};
  const CuResult r = RunOnDevice([&](Device& d) {
    return d.StreamCreate(&s, (flags & kStreamNonBlocking) ? stackcheck::StreamFlags::kNonBlocking
                                                           : stackcheck::StreamFlags::kBlocking);
  });
  LogDriverCall(Symbol(DriverCall::kStreamCreate),
                absl::StrCat("(flags=", flags, ") -> ", Name(r)));
  if (r == CuResult::kSuccess) *stream = FromSim(s);
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.StreamDestroy(ToSim(stream)); });
  LogDriverCall(Symbol(DriverCall::kStreamDestroy), absl::StrCat(" -> ", Name(r)));
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.StreamSynchronize(ToSim(stream)); });
  LogDriverCall(Symbol(DriverCall::kStreamSynchronize), absl::StrCat(" -> ", Name(r)));
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuStreamQuery(CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.StreamQuery(ToSim(stream)); }));
}

STACKCHECK_CUDA_EXPORT CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback fn,
                                                    void* user_data, unsigned int flags) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (fn == nullptr || flags != 0) return Code(CuResult::kInvalidValue);
  auto* call = new CallbackCall{fn, user_data};
  const CuResult r = RunOnDevice(
      [&](Device& d) { return d.StreamAddCallback(ToSim(stream), CallbackTrampoline, call); });
  LogDriverCall(Symbol(DriverCall::kStreamAddCallback), absl::StrCat(" -> ", Name(r)));
  if (r != CuResult::kSuccess) delete call;
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const auto e =
      static_cast<stackcheck::EventHandle>(reinterpret_cast<std::uintptr_t>(event) - kHandleBase);
  return Code(RunOnDevice([&](Device& d) { return d.StreamWaitEvent(ToSim(stream), e); }));
}

namespace {
stackcheck::EventHandle ToSimEvent(CUevent event) {
  return static_cast<stackcheck::EventHandle>(reinterpret_cast<std::uintptr_t>(event) -
                                              kHandleBase);
}
}  // namespace

STACKCHECK_CUDA_EXPORT CUresult cuEventCreate(CUevent* event, unsigned int) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (event == nullptr) return Code(CuResult::kInvalidValue);
  stackcheck::EventHandle e{};
  const CuResult r = RunOnDevice([&](Device& d) { return d.EventCreate(&e); });
  if (r == CuResult::kSuccess) {
    *event = reinterpret_cast<CUevent>(static_cast<std::uintptr_t>(e) + kHandleBase);
  }
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.EventDestroy(ToSimEvent(event)); }));
}

STACKCHECK_CUDA_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(
      RunOnDevice([&](Device& d) { return d.EventRecord(ToSimEvent(event), ToSim(stream)); }));
}

STACKCHECK_CUDA_EXPORT CUresult cuEventQuery(CUevent event) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.EventQuery(ToSimEvent(event)); }));
}

STACKCHECK_CUDA_EXPORT CUresult cuEventSynchronize(CUevent event) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.EventSynchronize(ToSimEvent(event)); }));
}

STACKCHECK_CUDA_EXPORT CUresult cuEventElapsedTime(float*, CUevent, CUevent) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return NotImplemented("cuEventElapsedTime");
}

}  // namespace stackcheck::libcuda
