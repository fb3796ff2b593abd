#include "sim/sim_device.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace stackcheck::sim {
namespace {

constexpr DevicePtr kFirstAddress = DevicePtr{1} << 32;

// Function handles: module handle << 4 | which kernel of the image.
constexpr std::uint32_t kRegionKernelId = 1;
constexpr std::uint32_t kCtorDtorKernelId = 2;

// Calls the H200 let through from a callback (SEM-09); every other call made
// there returns CUDA_ERROR_NOT_PERMITTED.
bool AllowedInCallback(DriverApi api) {
  switch (api) {
    case DriverApi::kInit:
    case DriverApi::kStreamAddCallback:
    case DriverApi::kLaunchHostFunc:
    case DriverApi::kStreamSynchronize:  // and hangs if it needs this thread
    case DriverApi::kStreamQuery:
    case DriverApi::kEventQuery:
    case DriverApi::kEventSynchronize:
      return true;
    default:
      return false;
  }
}

std::uint32_t StreamIndex(StreamHandle s) { return static_cast<std::uint32_t>(s); }

}  // namespace

// One driver call: its scheduling point on entry, its kDriverCall event on
// return, and the context flags a monitor needs (callback, teardown).
class SimDevice::Call {
 public:
  Call(SimDevice* device, DriverApi api, Footprint step)
      : device_(device), api_(api) {
    device->scheduler_->Point(step);
    const ActorId self = device->scheduler_->current();
    if (self != kNoActor && IsCallbackContext(device->scheduler_->kind(self))) {
      flags_ |= kCallFromCallback;
    }
    if (device->context_ == Context::kDestroying && self != device->destroyer_) {
      flags_ |= kCallDuringTeardown;
    }
  }
  CuResult Return(CuResult result) const {
    device_->scheduler_->Log(EventKind::kDriverCall, static_cast<std::uint32_t>(api_),
                             flags_, 0, 0, static_cast<std::uint64_t>(result));
    return result;
  }
  DriverApi api() const { return api_; }
  std::uint32_t flags() const { return flags_; }

 private:
  SimDevice* device_;
  DriverApi api_;
  std::uint32_t flags_ = 0;
};

// --- execution lifecycle -----------------------------------------------------

void SimDevice::BeginExecution() {
  scheduler_->CallbackWorkChanged();
  initialized_ = false;
  context_ = Context::kNone;
  destroyer_ = kNoActor;
  sticky_ = CuResult::kSuccess;
  for (std::size_t i = 0; i < stream_count_; ++i) {
    streams_[i].ops.clear();
    streams_[i].head = 0;
  }
  stream_count_ = 0;
  extra_blocking_streams_ = false;
  events_.clear();
  record_done_.assign(1, 1);  // record id 0: "never recorded", complete
  blocks_.clear();
  stale_.clear();
  live_bytes_ = 0;
  next_address_ = kFirstAddress;
  alloc_calls_ = 0;
  modules_loaded_ = 0;
  next_module_ = 0;
  next_kernel_ = 0;
  next_callback_ = 0;
  next_seq_ = 0;
  callback_queue_.clear();
  callback_head_ = 0;
  callback_thread_ = kNoActor;
  if (config_.serial_callback_thread) {
    callback_thread_ = scheduler_->SpawnFiber(
        ActorKind::kCallbackThread, [this] { CallbackThreadBody(); },
        WaitReason{WaitKind::kCallbackWork});
  }
  NewStream(/*legacy=*/true, /*blocking=*/true);
}

std::uint32_t SimDevice::NewStream(bool legacy, bool blocking) {
  if (stream_count_ == streams_.size()) streams_.emplace_back();
  scheduler_->DeviceChanged();
  const auto index = static_cast<std::uint32_t>(stream_count_++);
  Stream& s = streams_[index];
  s.live = true;
  s.legacy = legacy;
  s.blocking = blocking;
  s.ops.clear();
  s.head = 0;
  s.actor = scheduler_->AddGpuActor(index);
  if (!legacy && blocking) extra_blocking_streams_ = true;
  return index;
}

// --- admission ---------------------------------------------------------------

CuResult SimDevice::Admit(DriverApi api, bool needs_context) const {
  // A destructor calling the driver while its fiber unwinds: nothing happens.
  if (scheduler_->tearing_down()) return CuResult::kDeinitialized;
  if (!initialized_ && api != DriverApi::kInit) return CuResult::kNotInitialized;
  if (api != DriverApi::kInit && sticky_ != CuResult::kSuccess) return sticky_;
  const ActorId self = scheduler_->current();
  if (self != kNoActor && IsCallbackContext(scheduler_->kind(self)) &&
      !AllowedInCallback(api)) {
    return CuResult::kNotPermitted;
  }
  if (needs_context) {
    if (context_ == Context::kNone) return CuResult::kInvalidContext;
    if (context_ == Context::kDestroyed) return CuResult::kContextIsDestroyed;
  }
  return CuResult::kSuccess;
}

bool SimDevice::ValidStream(StreamHandle stream) const {
  const std::uint32_t i = StreamIndex(stream);
  return i < stream_count_ && streams_[i].live;
}

bool SimDevice::ValidEvent(EventHandle event) const {
  const auto i = static_cast<std::uint32_t>(event);
  return i >= 1 && i <= events_.size() && events_[i - 1].live;
}

Footprint SimDevice::EnqueueFootprint(std::uint32_t stream) const {
  const std::uint32_t obj = ObjectId(ObjectKind::kStream, stream);
  // With several blocking streams the legacy barrier orders them all.
  if (extra_blocking_streams_ && stream < stream_count_ && streams_[stream].blocking) {
    return Touches(obj, true, ObjectId(ObjectKind::kStreamOrder, 0), true);
  }
  return Touches(obj, true);
}

SimDevice::Op& SimDevice::Enqueue(std::uint32_t stream, OpKind kind) {
  scheduler_->DeviceChanged();
  Stream& s = streams_[stream];
  s.ops.emplace_back();
  Op& op = s.ops.back();
  op.kind = kind;
  op.seq = next_seq_++;
  return op;
}

bool SimDevice::AllIdle() const {
  for (std::size_t i = 0; i < stream_count_; ++i) {
    if (!streams_[i].empty()) return false;
  }
  return true;
}

void SimDevice::WaitUntil(const Call& call, const WaitReason& reason,
                          Footprint step) {
  if (WaitSatisfied(reason)) return;
  scheduler_->Log(EventKind::kDriverCallBlock, static_cast<std::uint32_t>(call.api()),
                  call.flags());
  do {
    scheduler_->Block(reason, step);
  } while (!WaitSatisfied(reason) && !scheduler_->tearing_down());
}

// --- context -----------------------------------------------------------------

CuResult SimDevice::Init() {
  Call call(this, DriverApi::kInit, GlobalFootprint());
  initialized_ = true;
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::CtxCreate() {
  Call call(this, DriverApi::kCtxCreate, GlobalFootprint());
  if (CuResult r = Admit(call.api(), false); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (context_ == Context::kDestroying) return call.Return(CuResult::kInvalidContext);
  if (context_ != Context::kLive) {
    context_ = Context::kLive;
    streams_[0].live = true;
  }
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::CtxDestroy() {
  const Footprint step = GlobalFootprint();
  Call call(this, DriverApi::kCtxDestroy, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (context_ == Context::kDestroying) return call.Return(CuResult::kInvalidContext);
  context_ = Context::kDestroying;
  destroyer_ = scheduler_->current();
  scheduler_->DeviceChanged();
  // SEM-15: pending kernels, callbacks and host functions complete first; the
  // callbacks run while this thread is blocked here.
  WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdle, 0, call.api()}, step);
  for (const auto& entry : blocks_) stale_.insert(entry.first);
  blocks_.clear();
  live_bytes_ = 0;
  for (std::size_t i = 1; i < stream_count_; ++i) streams_[i].live = false;
  streams_[0].live = false;
  for (EventState& e : events_) e.live = false;
  modules_loaded_ = 0;
  context_ = Context::kDestroyed;
  destroyer_ = kNoActor;
  scheduler_->Log(EventKind::kCtxDestroy);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::CtxSynchronize() {
  const Footprint step = GlobalFootprint();
  Call call(this, DriverApi::kCtxSynchronize, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdle, 0, call.api()}, step);
  return call.Return(sticky_);
}

// --- memory --------------------------------------------------------------------

std::uint64_t SimDevice::Charge(std::uint64_t bytes) const {
  const std::uint64_t g = config_.alloc_granularity > 1 ? config_.alloc_granularity : 1;
  return (bytes + g - 1) / g * g;
}

CuResult SimDevice::Allocate(DevicePtr* ptr, std::uint64_t bytes, bool async) {
  if (bytes == 0) {
    scheduler_->Log(EventKind::kAllocFailed, 0, 0, 0, 0,
                    static_cast<std::uint64_t>(CuResult::kInvalidValue), bytes);
    return CuResult::kInvalidValue;
  }
  if (!async && ++alloc_calls_ == config_.alloc_failure_at_call) {
    scheduler_->Log(EventKind::kAllocFailed, 0, 0, 0, 0,
                    static_cast<std::uint64_t>(CuResult::kOutOfMemory), bytes);
    return CuResult::kOutOfMemory;
  }
  const std::uint64_t charged = Charge(bytes);
  if (charged < bytes || charged > config_.device_capacity - live_bytes_) {
    scheduler_->Log(EventKind::kAllocFailed, 0, 0, 0, 0,
                    static_cast<std::uint64_t>(CuResult::kOutOfMemory), bytes);
    return CuResult::kOutOfMemory;
  }
  const DevicePtr p = next_address_;
  next_address_ += charged;
  blocks_[p] = Block{bytes, charged, async, false};
  live_bytes_ += charged;
  *ptr = p;
  scheduler_->Log(EventKind::kAlloc, 0, 0, 0, 0, p, bytes);
  return CuResult::kSuccess;
}

void SimDevice::ReleaseBlock(DevicePtr ptr) {
  auto it = blocks_.find(ptr);
  live_bytes_ -= it->second.charged;
  blocks_.erase(it);
}

CuResult SimDevice::MemAlloc(DevicePtr* ptr, std::uint64_t bytes) {
  Call call(this, DriverApi::kMemAlloc,
            Touches(ObjectId(ObjectKind::kMemory, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (ptr == nullptr) return call.Return(CuResult::kInvalidValue);
  // SEM-10: never waits for kernels or callbacks.
  return call.Return(Allocate(ptr, bytes, /*async=*/false));
}

CuResult SimDevice::MemFree(DevicePtr ptr) {
  const Footprint step = config_.free_waits_for_streams
                             ? GlobalFootprint()
                             : Touches(ObjectId(ObjectKind::kMemory, 0), true);
  Call call(this, DriverApi::kMemFree, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (ptr == 0) return call.Return(CuResult::kSuccess);
  if (stale_.contains(ptr)) return call.Return(CuResult::kContextIsDestroyed);
  auto it = blocks_.find(ptr);
  // Double free and interior pointers are plain invalid values (SEM-11).
  if (it == blocks_.end() || it->second.free_pending) {
    return call.Return(CuResult::kInvalidValue);
  }
  if (!it->second.async && config_.free_waits_for_streams) {
    // SEM-11 (observed): every stream idle, a running callback included.
    WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdle, 0, call.api()}, step);
    if (sticky_ != CuResult::kSuccess) return call.Return(sticky_);
    it = blocks_.find(ptr);  // another thread may have freed it meanwhile
    if (it == blocks_.end() || it->second.free_pending) {
      return call.Return(CuResult::kInvalidValue);
    }
  }
  const std::uint64_t bytes = it->second.bytes;
  ReleaseBlock(ptr);
  scheduler_->Log(EventKind::kFree, 0, 0, 0, 0, ptr, bytes);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::MemGetInfo(MemInfo* info) {
  Call call(this, DriverApi::kMemGetInfo,
            Touches(ObjectId(ObjectKind::kMemory, 0), false));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (info == nullptr) return call.Return(CuResult::kInvalidValue);
  info->total_bytes = config_.device_capacity;
  info->free_bytes = config_.device_capacity - live_bytes_;
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes,
                                  StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverApi::kMemAllocAsync,
            Touches(ObjectId(ObjectKind::kStream, s), true,
                    ObjectId(ObjectKind::kMemory, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (ptr == nullptr) return call.Return(CuResult::kInvalidValue);
  // Addresses are never reused, so the block is usable by any later work.
  return call.Return(Allocate(ptr, bytes, /*async=*/true));
}

CuResult SimDevice::MemFreeAsync(DevicePtr ptr, StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverApi::kMemFreeAsync,
            Touches(ObjectId(ObjectKind::kStream, s), true,
                    ObjectId(ObjectKind::kMemory, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (stale_.contains(ptr)) return call.Return(CuResult::kContextIsDestroyed);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || it->second.free_pending) {
    return call.Return(CuResult::kInvalidValue);
  }
  it->second.free_pending = true;
  Enqueue(s, OpKind::kAsyncFree).ptr = ptr;
  return call.Return(CuResult::kSuccess);
}

// --- modules and kernels -----------------------------------------------------------

CuResult SimDevice::ModuleLoad(ModuleHandle* module, absl::string_view image) {
  Call call(this, DriverApi::kModuleLoad,
            Touches(ObjectId(ObjectKind::kContext, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (module == nullptr) return call.Return(CuResult::kInvalidValue);
  if (image != kKernelImage) return call.Return(CuResult::kInvalidImage);
  if (next_module_ >= 32) return call.Return(CuResult::kOutOfMemory);
  modules_loaded_ |= 1u << next_module_;
  *module = static_cast<ModuleHandle>(++next_module_);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::ModuleUnload(ModuleHandle module) {
  Call call(this, DriverApi::kModuleUnload,
            Touches(ObjectId(ObjectKind::kContext, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  const auto m = static_cast<std::uint32_t>(module);
  if (m == 0 || m > 32 || !(modules_loaded_ & (1u << (m - 1)))) {
    return call.Return(CuResult::kInvalidHandle);
  }
  modules_loaded_ &= ~(1u << (m - 1));
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::ModuleGetFunction(FunctionHandle* function,
                                      ModuleHandle module,
                                      absl::string_view name) {
  Call call(this, DriverApi::kModuleGetFunction,
            Touches(ObjectId(ObjectKind::kContext, 0), false));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  const auto m = static_cast<std::uint32_t>(module);
  if (m == 0 || m > 32 || !(modules_loaded_ & (1u << (m - 1)))) {
    return call.Return(CuResult::kInvalidHandle);
  }
  if (function == nullptr) return call.Return(CuResult::kInvalidValue);
  std::uint32_t kernel;
  if (name == kRegionKernel) {
    kernel = kRegionKernelId;
  } else if (name == kCtorDtorKernel) {
    kernel = kCtorDtorKernelId;
  } else {
    return call.Return(CuResult::kNotFound);
  }
  *function = static_cast<FunctionHandle>(m << 4 | kernel);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::LaunchKernel(FunctionHandle function, Dim3 grid, Dim3 block,
                                 const KernelArgs& args, StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverApi::kLaunchKernel, EnqueueFootprint(s));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  const auto f = static_cast<std::uint32_t>(function);
  const std::uint32_t m = f >> 4;
  const std::uint32_t k = f & 0xf;
  if (m == 0 || m > 32 || !(modules_loaded_ & (1u << (m - 1))) ||
      (k != kRegionKernelId && k != kCtorDtorKernelId)) {
    return call.Return(CuResult::kInvalidHandle);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  // SEM-03: configuration errors fail the call at once and are not sticky.
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 ||
      block.y == 0 || block.z == 0 ||
      std::uint64_t{block.x} * block.y * block.z > 1024) {
    return call.Return(CuResult::kInvalidValue);
  }
  Op& op = Enqueue(s, OpKind::kKernel);
  op.id = next_kernel_++;
  op.args = args;  // copied: later changes to the caller's buffer don't matter
  op.slots = grid.x * block.y;
  scheduler_->Log(EventKind::kKernelEnqueue, op.id, s, args.region_tag, op.slots,
                  args.stacks, args.stack_size_per_warp);
  return call.Return(CuResult::kSuccess);
}

// --- streams -------------------------------------------------------------------

CuResult SimDevice::StreamCreate(StreamHandle* stream, StreamFlags flags) {
  Call call(this, DriverApi::kStreamCreate,
            Touches(ObjectId(ObjectKind::kStreamOrder, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (stream == nullptr) return call.Return(CuResult::kInvalidValue);
  *stream = static_cast<StreamHandle>(
      NewStream(/*legacy=*/false, flags == StreamFlags::kBlocking));
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::StreamDestroy(StreamHandle stream) {
  Call call(this, DriverApi::kStreamDestroy,
            Touches(ObjectId(ObjectKind::kStreamOrder, 0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (stream == kLegacyStream || !ValidStream(stream)) {
    return call.Return(CuResult::kInvalidHandle);
  }
  // Work already queued still completes; the handle is gone at once.
  streams_[StreamIndex(stream)].live = false;
  scheduler_->DeviceChanged();
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::StreamSynchronize(StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  const Footprint step = EnqueueFootprint(s);
  Call call(this, DriverApi::kStreamSynchronize, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  WaitUntil(call, WaitReason{WaitKind::kStreamIdle, s, call.api()}, step);
  return call.Return(sticky_);
}

CuResult SimDevice::StreamQuery(StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverApi::kStreamQuery, EnqueueFootprint(s));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  return call.Return(streams_[s].empty() ? CuResult::kSuccess : CuResult::kNotReady);
}

CuResult SimDevice::StreamAddCallback(StreamHandle stream, StreamCallbackFn fn,
                                      void* user_data) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverApi::kStreamAddCallback, EnqueueFootprint(s));
  // SEM-06: refused with the sticky error once poisoned (Admit).
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (fn == nullptr) return call.Return(CuResult::kInvalidValue);
  Op& op = Enqueue(s, OpKind::kCallback);
  op.id = next_callback_++;
  op.callback = fn;
  op.user_data = user_data;
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::LaunchHostFunc(StreamHandle stream, HostFn fn,
                                   void* user_data) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverApi::kLaunchHostFunc, EnqueueFootprint(s));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (fn == nullptr) return call.Return(CuResult::kInvalidValue);
  Op& op = Enqueue(s, OpKind::kHostFn);
  op.id = next_callback_++;
  op.host_fn = fn;
  op.user_data = user_data;
  return call.Return(CuResult::kSuccess);
}

// --- events --------------------------------------------------------------------

CuResult SimDevice::EventCreate(EventHandle* event) {
  Call call(this, DriverApi::kEventCreate,
            Touches(ObjectId(ObjectKind::kEvent, static_cast<std::uint32_t>(events_.size())), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (event == nullptr) return call.Return(CuResult::kInvalidValue);
  events_.push_back(EventState{true, 0});
  *event = static_cast<EventHandle>(events_.size());
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::EventDestroy(EventHandle event) {
  const auto e = static_cast<std::uint32_t>(event);
  Call call(this, DriverApi::kEventDestroy, Touches(ObjectId(ObjectKind::kEvent, e), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event)) return call.Return(CuResult::kInvalidHandle);
  events_[e - 1].live = false;
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::EventRecord(EventHandle event, StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  const auto e = static_cast<std::uint32_t>(event);
  Call call(this, DriverApi::kEventRecord, EnqueueFootprint(s));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event) || !ValidStream(stream)) {
    return call.Return(CuResult::kInvalidHandle);
  }
  // SEM-14: the event now stands for the stream's current tail.
  const auto record = static_cast<std::uint32_t>(record_done_.size());
  record_done_.push_back(0);
  events_[e - 1].record = record;
  Op& op = Enqueue(s, OpKind::kEventRecord);
  op.id = record;
  op.event = e;
  scheduler_->Log(EventKind::kEventRecord, e, s);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::EventQuery(EventHandle event) {
  const auto e = static_cast<std::uint32_t>(event);
  Call call(this, DriverApi::kEventQuery, Touches(ObjectId(ObjectKind::kEvent, e), false));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event)) return call.Return(CuResult::kInvalidHandle);
  return call.Return(record_done_[events_[e - 1].record] ? CuResult::kSuccess
                                                         : CuResult::kNotReady);
}

CuResult SimDevice::EventSynchronize(EventHandle event) {
  const auto e = static_cast<std::uint32_t>(event);
  const Footprint step = Touches(ObjectId(ObjectKind::kEvent, e), false);
  Call call(this, DriverApi::kEventSynchronize, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event)) return call.Return(CuResult::kInvalidHandle);
  WaitUntil(call, WaitReason{WaitKind::kEvent, events_[e - 1].record, call.api()},
            step);
  return call.Return(sticky_);
}

CuResult SimDevice::StreamWaitEvent(StreamHandle stream, EventHandle event) {
  const std::uint32_t s = StreamIndex(stream);
  const auto e = static_cast<std::uint32_t>(event);
  Call call(this, DriverApi::kStreamWaitEvent, EnqueueFootprint(s));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event) || !ValidStream(stream)) {
    return call.Return(CuResult::kInvalidHandle);
  }
  const std::uint32_t record = events_[e - 1].record;
  if (!record_done_[record]) Enqueue(s, OpKind::kWaitEvent).id = record;
  return call.Return(CuResult::kSuccess);
}

}  // namespace stackcheck::sim
