#include "sim/sim_device.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace stackcheck::sim {
namespace {

// Each actor allocates from its own range: an address depends on the actor
// and its own earlier allocations only, so allocations of different actors
// commute (see AllocFootprint).
constexpr int kActorRangeBits = 40;

// Function handles: module handle << 4 | which kernel of the image.
constexpr std::uint32_t kRegionKernelId = 1;
constexpr std::uint32_t kCtorDtorKernelId = 2;

// Calls the H200 let through from a callback (SEM-09); every other call made
// there returns CUDA_ERROR_NOT_PERMITTED, cuLaunchHostFunc included (measured
// on driver 580.159.04).
bool AllowedInCallback(DriverCall api) {
  switch (api) {
    case DriverCall::kInit:
    case DriverCall::kStreamAddCallback:  // not re-probed on the H200
    case DriverCall::kStreamSynchronize:  // and hangs if it needs this thread
    case DriverCall::kStreamQuery:
    case DriverCall::kEventQuery:
    case DriverCall::kEventSynchronize:
      return true;
    default:
      return false;
  }
}

std::uint32_t StreamIndex(StreamHandle s) { return static_cast<std::uint32_t>(s); }

std::uint32_t MemoryObject() { return ObjectId(ObjectKind::kMemory, 0); }
// An event's two halves: which record it stands for (host records move it)
// and whether records completed (the GPU completes them).
std::uint32_t EventPointerObject(std::uint32_t e) { return ObjectId(ObjectKind::kEventPointer, e); }
std::uint32_t EventDoneObject(std::uint32_t e) { return ObjectId(ObjectKind::kEvent, e); }

// A block's footprint object: its base address hashed to the 24 bits an
// object index has. Two blocks sharing an index only add a dependency.
std::uint32_t BlockObject(DevicePtr base) {
  std::uint64_t h = base * 0x9e3779b97f4a7c15ull;
  return ObjectId(ObjectKind::kBlock, static_cast<std::uint32_t>(h >> 40));
}

}  // namespace

// One driver call: its scheduling point on entry, its kDriverCall event on
// return, and the context flags a monitor needs (callback, teardown).
class SimDevice::Call {
 public:
  Call(SimDevice* device, DriverCall api, Footprint step) : device_(device), api_(api) {
    device->scheduler_->Point(device->CallFootprint(api, step));
    const ActorId self = device->scheduler_->current();
    if (device->scheduler_->CurrentIsCallback()) flags_ |= kCallFromCallback;
    if (device->context_ == Context::kDestroying && self != device->destroyer_) {
      flags_ |= kCallDuringTeardown;
    }
  }
  CuResult Return(CuResult result) const {
    device_->scheduler_->Log(EventKind::kDriverCall, static_cast<std::uint32_t>(api_), flags_, 0, 0,
                             static_cast<std::uint64_t>(result));
    return result;
  }
  DriverCall api() const { return api_; }
  std::uint32_t flags() const { return flags_; }

 private:
  SimDevice* device_;
  DriverCall api_;
  std::uint32_t flags_ = 0;
};

// --- execution lifecycle -----------------------------------------------------

void SimDevice::BeginExecution() {
  scheduler_->CallbackWorkChanged();
  fail_next_allocation_ = false;
  initialized_ = false;
  context_ = Context::kNone;
  destroyer_ = kNoActor;
  sticky_ = CuResult::kSuccess;
  for (std::size_t i = 0; i < stream_count_; ++i) {
    streams_[i].ops.clear();
    streams_[i].head = 0;
    streams_[i].front_by = Stream::FrontBy::kEnqueue;
  }
  stream_count_ = 0;
  extra_blocking_streams_ = false;
  events_.clear();
  host_words_.clear();
  record_done_.assign(1, 1);  // record id 0: "never recorded", complete
  blocks_.clear();
  stale_.clear();
  live_bytes_ = 0;
  next_by_actor_.clear();
  attempted_ever_ = 0;
  alloc_calls_ = 0;
  launch_calls_ = 0;
  modules_loaded_ = 0;
  next_module_ = 0;
  next_kernel_ = 0;
  launches_by_actor_.clear();
  next_callback_ = 0;
  next_seq_ = 0;
  callback_queue_.clear();
  callback_head_ = 0;
  callback_thread_ = kNoActor;
  if (config_.modes.serial_callback_thread) {
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

CuResult SimDevice::Admit(DriverCall api, bool needs_context) const {
  // A destructor calling the driver while its fiber unwinds: nothing happens.
  if (scheduler_->tearing_down()) return CuResult::kDeinitialized;
  if (!initialized_ && api != DriverCall::kInit) return CuResult::kNotInitialized;
  if (api != DriverCall::kInit && sticky_ != CuResult::kSuccess) return sticky_;
  if (scheduler_->CurrentIsCallback() && !AllowedInCallback(api)) {
    return CuResult::kNotPermitted;
  }
  if (needs_context) {
    if (context_ == Context::kNone) return CuResult::kInvalidContext;
    if (context_ == Context::kDestroyed) return CuResult::kContextIsDestroyed;
  }
  return CuResult::kSuccess;
}

// SEM-05: once a kernel has poisoned the context, Admit refuses every call
// but cuInit with the sticky error before it looks at anything else, and the
// error stays for the rest of the execution, so a call declared then is
// refused when it runs. It changes nothing and reads only the poisoning and,
// for its teardown flag, the context's lifetime (both kContext, which the
// trap's device-wide write and a context's creation and destruction order):
// calls made after a trap commute with one another, whatever they would have
// touched on a healthy context. A call declared before the trap keeps its
// whole footprint, so its race with the trap is still explored.
Footprint SimDevice::CallFootprint(DriverCall api, const Footprint& step) const {
  if (api == DriverCall::kInit || sticky_ == CuResult::kSuccess || !initialized_ ||
      scheduler_->tearing_down()) {
    return step;
  }
  return Touches(ObjectId(ObjectKind::kContext, 0), false);
}

bool SimDevice::ValidStream(StreamHandle stream) const {
  const std::uint32_t i = StreamIndex(stream);
  return i < stream_count_ && streams_[i].live;
}

bool SimDevice::ValidHostWord(HostWordHandle word) const {
  const auto i = static_cast<std::uint32_t>(word);
  return i >= 1 && i <= host_words_.size() && host_words_[i - 1].live;
}

bool SimDevice::ValidEvent(EventHandle event) const {
  const auto i = static_cast<std::uint32_t>(event);
  return i >= 1 && i <= events_.size() && events_[i - 1].live;
}

Footprint SimDevice::EnqueueFootprint(std::uint32_t stream) const {
  return OnStream(stream, Touches(StreamEnqueuedObject(0), true));
}

// Idle means nothing enqueued is still incomplete: both halves.
Footprint SimDevice::IdleFootprint() const {
  return Touches(StreamEnqueuedObject(0), false, StreamProgressObject(0), false);
}

Footprint SimDevice::WaitIdleFootprint() const { return Blocking(IdleFootprint(), kWaitsForIdle); }

std::uint32_t SimDevice::HoldingBlockObject(DevicePtr address) const {
  for (const auto& [base, block] : blocks_) {
    if (address >= base && address - base < block.charged) return BlockObject(base);
  }
  return 0;
}

// A launch appends to the stream and binds the kernel to the block holding
// its stacks (what no-use-after-free and no-stack-overlap judge at enqueue):
// it reads that block. Stacks in no block may land in one a later allocation
// creates, so then it reads the allocator instead.
//
// It also writes an object of its own, which the kernel's start reads if the
// launch found the stream idle (it then enabled the stream's actor): naming
// the stream there instead would make every start conflict with every later
// launch, although they commute.
Footprint SimDevice::LaunchFootprint(std::uint32_t stream, DevicePtr stacks,
                                     std::uint32_t launch) const {
  const std::uint32_t block = HoldingBlockObject(stacks);
  return OnStream(stream, Touches(StreamEnqueuedObject(0), true,
                                  block != 0 ? block : MemoryObject(), false, launch, true));
}

std::uint32_t SimDevice::NextLaunchObject() {
  const ActorId actor = scheduler_->current();
  if (actor >= launches_by_actor_.size()) launches_by_actor_.resize(actor + 1, 0);
  const std::uint32_t n = launches_by_actor_[actor]++;
  // 8 bits of actor, 16 of count: indexes that wrap only add dependencies.
  return ObjectId(ObjectKind::kLaunch, (actor & 0xffu) << 16 | (n & 0xffffu));
}

// While the device's memory is ample, an allocation succeeds whatever the
// others did, at an address of its own actor's range: it commutes with the
// other actors' allocations and frees, and writes only its actor's allocator
// object (a device object, so a trap still orders it). Frees, copies and
// launches read or write the ledger (MemoryObject) or a block, which an
// allocation cannot change for them: a fresh block is unknown to other
// actors until published through program state, whose own steps order them.
// "Ample" is checked, not assumed: an execution whose allocations total more
// than the capacity (frees not subtracted, so whatever their order) breaks
// the premise and says so (capacity_premise_broken). An injected failure of
// the k-th call counts calls across actors, so it keeps the shared ledger.
bool SimDevice::AllocationsCommute() const {
  return !config_.exact_memory_ledger && config_.alloc_failure_at_call == 0;
}

bool SimDevice::capacity_premise_broken() const {
  return AllocationsCommute() && attempted_ever_ > config_.device_capacity;
}

Footprint SimDevice::AllocFootprint() const {
  if (!AllocationsCommute()) return Touches(MemoryObject(), true);
  return Touches(ObjectId(ObjectKind::kMemory, 1 + scheduler_->current()), true);
}

// cuMemFree changes the allocator's books (capacity, what is live). When it
// waits for every stream (SEM-11, observed), it releases the block only once
// no work is queued anywhere, so it reads whether the legacy stream is idle
// (other streams' steps are global) and cannot race with a kernel on the
// block; otherwise it writes the block, which kernels and launches on it
// touch.
Footprint SimDevice::FreeFootprint(DevicePtr ptr) const {
  if (config_.modes.free_waits_for_streams) {
    auto it = blocks_.find(ptr);
    const bool async = it != blocks_.end() && it->second.async;
    if (!async) {
      return Blocking(Touches(MemoryObject(), true, StreamEnqueuedObject(0), false,
                              StreamProgressObject(0), false),
                      kWaitsForIdle);
    }
  }
  return Touches(MemoryObject(), true, BlockObject(ptr), true);
}

SimDevice::Op& SimDevice::Enqueue(std::uint32_t stream, OpKind kind) {
  scheduler_->DeviceChanged();
  Stream& s = streams_[stream];
  if (s.empty()) s.front_by = Stream::FrontBy::kEnqueue;  // makes it runnable
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

void SimDevice::WaitUntil(const Call& call, const WaitReason& reason, Footprint step) {
  if (WaitSatisfied(reason)) return;
  scheduler_->Log(EventKind::kDriverCallBlock, static_cast<std::uint32_t>(call.api()),
                  call.flags());
  do {
    scheduler_->Block(reason, step);
  } while (!WaitSatisfied(reason) && !scheduler_->tearing_down());
}

// --- context -----------------------------------------------------------------

CuResult SimDevice::Init() {
  Call call(this, DriverCall::kInit, GlobalFootprint());
  initialized_ = true;
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::CtxCreate() {
  Call call(this, DriverCall::kCtxCreate, GlobalFootprint());
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
  Call call(this, DriverCall::kCtxDestroy, step);
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
  // Pinned host memory belongs to the context too.
  for (HostWord& w : host_words_) w.live = false;
  modules_loaded_ = 0;
  context_ = Context::kDestroyed;
  destroyer_ = kNoActor;
  scheduler_->Log(EventKind::kCtxDestroy);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::CtxSynchronize() {
  // Waits for every stream to drain: the legacy stream's objects stand for
  // all of them (steps on other streams are global).
  const Footprint step = WaitIdleFootprint();
  Call call(this, DriverCall::kCtxSynchronize, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdle, 0, call.api()}, step);
  return call.Return(sticky_);
}

// --- memory --------------------------------------------------------------------

std::uint64_t SimDevice::Charge(std::uint64_t bytes) const {
  const std::uint64_t g = config_.modes.alloc_granularity > 1 ? config_.modes.alloc_granularity : 1;
  return (bytes + g - 1) / g * g;
}

CuResult SimDevice::Allocate(DevicePtr* ptr, std::uint64_t bytes, bool async) {
  if (bytes == 0) {
    scheduler_->Log(EventKind::kAllocFailed, 0, 0, 0, 0,
                    static_cast<std::uint64_t>(CuResult::kInvalidValue), bytes);
    return CuResult::kInvalidValue;
  }
  // std::exchange: a failure asked for (FailNextAllocation) is used once.
  if (!async && (++alloc_calls_ == config_.alloc_failure_at_call ||
                 std::exchange(fail_next_allocation_, false))) {
    scheduler_->Log(EventKind::kAllocFailed, 0, 0, 0, 0,
                    static_cast<std::uint64_t>(CuResult::kOutOfMemory), bytes);
    return CuResult::kOutOfMemory;
  }
  const std::uint64_t charged = Charge(bytes);
  // Saturating: a size that overflowed the rounding breaks the premise too.
  attempted_ever_ =
      charged < bytes || charged > ~attempted_ever_ ? ~std::uint64_t{0} : attempted_ever_ + charged;
  if (charged < bytes || charged > config_.device_capacity - live_bytes_) {
    scheduler_->Log(EventKind::kAllocFailed, 0, 0, 0, 0,
                    static_cast<std::uint64_t>(CuResult::kOutOfMemory), bytes);
    return CuResult::kOutOfMemory;
  }
  const ActorId actor = scheduler_->current();
  if (actor >= next_by_actor_.size()) next_by_actor_.resize(actor + 1, 0);
  const DevicePtr p =
      config_.first_device_address + (DevicePtr{actor} << kActorRangeBits) + next_by_actor_[actor];
  next_by_actor_[actor] += charged;
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
  Call call(this, DriverCall::kMemAlloc, AllocFootprint());
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (ptr == nullptr) return call.Return(CuResult::kInvalidValue);
  // SEM-10: never waits for kernels or callbacks.
  return call.Return(Allocate(ptr, bytes, /*async=*/false));
}

CuResult SimDevice::MemFree(DevicePtr ptr) {
  const Footprint step = FreeFootprint(ptr);
  Call call(this, DriverCall::kMemFree, step);
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
  if (!it->second.async && config_.modes.free_waits_for_streams) {
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
  // Reads what every actor's allocations changed (AllocFootprint).
  Call call(this, DriverCall::kMemGetInfo,
            AllocationsCommute() ? DeviceWideFootprint() : Touches(MemoryObject(), false));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (info == nullptr) return call.Return(CuResult::kInvalidValue);
  info->total_bytes = config_.device_capacity;
  info->free_bytes = config_.device_capacity - live_bytes_;
  return call.Return(CuResult::kSuccess);
}

// A synchronous copy is legacy-stream work done by the calling thread: it
// waits for every stream to drain (what it reads, like cuCtxSynchronize),
// then reads the allocator's books to find its block, which every
// allocation and free writes. A kernel that poisons the context while the
// copy waits ends the wait at once with CUDA_ERROR_UNKNOWN, callbacks still
// pending (SEM-14, measured on the H200).
CuResult SimDevice::Copy(DriverCall api, DevicePtr device_ptr, std::uint64_t bytes) {
  // A copy that a trap wakes ends differently (999) from one that starts
  // after it (719): kWokenByTrapDiffers keeps that race with the trapping
  // step, which other waits for the stream need not explore.
  const Footprint step = Blocking(Touches(StreamEnqueuedObject(0), false, StreamProgressObject(0),
                                          false, MemoryObject(), false),
                                  kWaitsForIdle | kWokenByTrapDiffers);
  Call call(this, api, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  WaitUntil(call, WaitReason{WaitKind::kAllStreamsIdleOrFault, 0, call.api()}, step);
  if (sticky_ != CuResult::kSuccess) return call.Return(CuResult::kUnknown);
  if (stale_.contains(device_ptr)) return call.Return(CuResult::kContextIsDestroyed);
  bool inside = false;
  for (const auto& [base, b] : blocks_) {
    if (device_ptr >= base && bytes <= b.bytes && device_ptr - base <= b.bytes - bytes) {
      inside = !b.free_pending;
      break;
    }
  }
  // A copy of nothing succeeds and copies nothing, wherever it points
  // (measured on the H100, hardware/zero_copy_probe.c): libgomp makes one
  // for a zero-length array section.
  if (bytes == 0) return call.Return(CuResult::kSuccess);
  if (!inside) return call.Return(CuResult::kInvalidValue);
  scheduler_->Log(EventKind::kMemcpy, api == DriverCall::kMemcpyHtoD ? 1 : 0, 0, 0, 0, device_ptr,
                  bytes);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::MemcpyHtoD(DevicePtr dst, const void* src, std::uint64_t bytes) {
  if (src == nullptr && bytes != 0) return CuResult::kInvalidValue;
  return Copy(DriverCall::kMemcpyHtoD, dst, bytes);
}

CuResult SimDevice::MemcpyDtoH(void* dst, DevicePtr src, std::uint64_t bytes) {
  if (dst == nullptr && bytes != 0) return CuResult::kInvalidValue;
  return Copy(DriverCall::kMemcpyDtoH, src, bytes);
}

CuResult SimDevice::MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes, StreamHandle stream) {
  // Stream-ordered allocation touches a stream, the allocator and (at the
  // free's completion) a block: more than a footprint holds, so global.
  Call call(this, DriverCall::kMemAllocAsync, GlobalFootprint());
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
  Call call(this, DriverCall::kMemFreeAsync, GlobalFootprint());
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
  // Global: every launch reads which modules are loaded, and a launch's
  // footprint has no room left for that.
  Call call(this, DriverCall::kModuleLoad, GlobalFootprint());
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
  // Global like ModuleLoad; also, the policy's Close runs in this step and
  // may destroy its lock there, which other threads' lock steps must see.
  Call call(this, DriverCall::kModuleUnload, GlobalFootprint());
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

CuResult SimDevice::ModuleGetFunction(FunctionHandle* function, ModuleHandle module,
                                      absl::string_view name) {
  Call call(this, DriverCall::kModuleGetFunction,
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
  } else if (name == kCtorDtorKernel) {  // the image has only this variant
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
  const std::uint32_t launch = NextLaunchObject();
  Footprint step = LaunchFootprint(s, args.vars != 0 ? 0 : args.stacks, launch);
  if (config_.kernels_never_trap && PreciseStream(s)) step.blocking |= kEnqueuesHarmlessWork;
  Call call(this, DriverCall::kLaunchKernel, step);
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
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
      std::uint64_t{block.x} * block.y * block.z > 1024) {
    return call.Return(CuResult::kInvalidValue);
  }
  // The injected rejection (too many resources): checked at the call, so it
  // is not sticky and nothing is enqueued.
  if (++launch_calls_ == config_.launch_failure_at_call) {
    return call.Return(CuResult::kLaunchOutOfResources);
  }
  Op& op = Enqueue(s, OpKind::kKernel);
  op.id = next_kernel_++;
  op.args = args;  // copied: later changes to the caller's buffer don't matter
  op.slots = grid.x * block.y;
  // A kernel with a variable table uses two blocks, and its steps touch both
  // (a table in no block leaves it the imprecise footprints).
  op.block = HoldingBlockObject(args.stacks);
  op.vars_block = args.vars != 0 ? HoldingBlockObject(args.vars) : 0;
  if (args.vars != 0 && op.vars_block == 0) op.block = 0;
  // A program allocation the kernel uses is a third block: a footprint names
  // at most three objects besides the stream's, so such a kernel's steps
  // take the global footprint (imprecise, sound).
  if (args.data != 0) op.block = 0;
  op.launch = launch;
  scheduler_->Log(EventKind::kKernelEnqueue, op.id, s, args.region_tag, op.slots, args.stacks,
                  args.stack_size_per_warp);
  if (args.vars != 0 || args.data != 0) {
    scheduler_->Log(EventKind::kKernelVars, op.id, 0, 0, 0, args.vars, args.data);
  }
  return call.Return(CuResult::kSuccess);
}

// --- streams -------------------------------------------------------------------

CuResult SimDevice::StreamCreate(StreamHandle* stream, StreamFlags flags) {
  // Global: a new stream changes what "every stream idle" means.
  Call call(this, DriverCall::kStreamCreate, GlobalFootprint());
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (stream == nullptr) return call.Return(CuResult::kInvalidValue);
  *stream = static_cast<StreamHandle>(NewStream(/*legacy=*/false, flags == StreamFlags::kBlocking));
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::StreamDestroy(StreamHandle stream) {
  Call call(this, DriverCall::kStreamDestroy, GlobalFootprint());
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
  const Footprint step = OnStream(s, WaitIdleFootprint());
  Call call(this, DriverCall::kStreamSynchronize, step);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  WaitUntil(call, WaitReason{WaitKind::kStreamIdle, s, call.api()}, step);
  return call.Return(sticky_);
}

CuResult SimDevice::StreamQuery(StreamHandle stream) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverCall::kStreamQuery, OnStream(s, IdleFootprint()));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  return call.Return(streams_[s].empty() ? CuResult::kSuccess : CuResult::kNotReady);
}

CuResult SimDevice::StreamAddCallback(StreamHandle stream, StreamCallbackFn fn, void* user_data) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverCall::kStreamAddCallback, EnqueueFootprint(s));
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

CuResult SimDevice::LaunchHostFunc(StreamHandle stream, HostFn fn, void* user_data) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverCall::kLaunchHostFunc, EnqueueFootprint(s));
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
  // The handle it returns depends on other threads' creations: it writes the
  // handle table. Nothing else can touch the new event before this returns.
  Call call(this, DriverCall::kEventCreate, Touches(ObjectId(ObjectKind::kEventTable, 0), true));
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
  // Every event call checks the handle is live through the pointer.
  Call call(this, DriverCall::kEventDestroy, Touches(EventPointerObject(e), true));
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
  // SEM-14: it also re-points the event, which queries and waits read.
  Call call(this, DriverCall::kEventRecord,
            OnStream(s, Touches(StreamEnqueuedObject(0), true, EventPointerObject(e), true)));
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
  Call call(this, DriverCall::kEventQuery,
            Touches(EventPointerObject(e), false, EventDoneObject(e), false));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event)) return call.Return(CuResult::kInvalidHandle);
  return call.Return(record_done_[events_[e - 1].record] ? CuResult::kSuccess
                                                         : CuResult::kNotReady);
}

CuResult SimDevice::EventSynchronize(EventHandle event) {
  const auto e = static_cast<std::uint32_t>(event);
  // The first step fixes which record to wait for (the pointer). If that
  // record is still pending it only blocks, which no other actor can see,
  // and the wait's effect is the resume step's, which reads completion; if
  // not, it returns at once, in the state the resume would have reached.
  // Either way the execution equals one where the first step ran after the
  // completion, so it need not conflict with it: executions that differ only
  // in whether the wait blocked first count as one.
  Call call(this, DriverCall::kEventSynchronize, Touches(EventPointerObject(e), false));
  const Footprint resume = Touches(EventDoneObject(e), false);
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event)) return call.Return(CuResult::kInvalidHandle);
  WaitUntil(call, WaitReason{WaitKind::kEvent, events_[e - 1].record, call.api()}, resume);
  return call.Return(sticky_);
}

CuResult SimDevice::StreamWaitEvent(StreamHandle stream, EventHandle event) {
  const std::uint32_t s = StreamIndex(stream);
  const auto e = static_cast<std::uint32_t>(event);
  // The stream, the event's pointer and its completion: global.
  Call call(this, DriverCall::kStreamWaitEvent, GlobalFootprint());
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidEvent(event) || !ValidStream(stream)) {
    return call.Return(CuResult::kInvalidHandle);
  }
  const std::uint32_t record = events_[e - 1].record;
  if (!record_done_[record]) {
    Op& op = Enqueue(s, OpKind::kWaitEvent);
    op.id = record;
    op.event = e;
  }
  return call.Return(CuResult::kSuccess);
}

// --- stream-ordered writes to host memory (EXT-01) -----------------------------

CuResult SimDevice::HostWordAlloc(HostWordHandle* word) {
  const auto w = static_cast<std::uint32_t>(host_words_.size() + 1);
  Call call(this, DriverCall::kMemHostAlloc, Touches(ObjectId(ObjectKind::kHostWord, w), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (word == nullptr) return call.Return(CuResult::kInvalidValue);
  host_words_.push_back(HostWord{true, 0});
  *word = static_cast<HostWordHandle>(w);
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::HostWordFree(HostWordHandle word) {
  const auto w = static_cast<std::uint32_t>(word);
  // Ordered against the word's writers as HostWordLoad is, but writing, and
  // against cuStreamWriteValue32 calls, which check the word when they
  // enqueue. The word's own object is then implied.
  Call call(this, DriverCall::kMemFreeHost,
            Touches(StreamEnqueuedObject(0), true, StreamProgressObject(0), true));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidHostWord(word)) return call.Return(CuResult::kInvalidValue);
  host_words_[w - 1].live = false;
  return call.Return(CuResult::kSuccess);
}

CuResult SimDevice::StreamWriteValue32(StreamHandle stream, HostWordHandle word,
                                       std::uint32_t value) {
  const std::uint32_t s = StreamIndex(stream);
  Call call(this, DriverCall::kStreamWriteValue32, EnqueueFootprint(s));
  if (CuResult r = Admit(call.api(), true); r != CuResult::kSuccess) {
    return call.Return(r);
  }
  if (!ValidStream(stream)) return call.Return(CuResult::kInvalidHandle);
  if (!ValidHostWord(word)) return call.Return(CuResult::kInvalidValue);
  Op& op = Enqueue(s, OpKind::kWriteValue);
  op.event = static_cast<std::uint32_t>(word);
  op.ptr = value;
  return call.Return(CuResult::kSuccess);
}

std::uint32_t SimDevice::HostWordLoad(HostWordHandle word) {
  // A plain load, not a driver call: it works in any context state, from any
  // thread, after a sticky error too. It is still a scheduling point, since
  // the GPU's write may come before or after it. The word is written by
  // kernel ends (EXT-02) and write-value steps: on the legacy stream those
  // write its progress object (a kernel end's footprint does not name the
  // word), and on any other stream every step is global. So a read of the
  // legacy stream's progress orders the load against every possible writer.
  // A trap's end (device-wide) writes no word: the load is beside it.
  const auto w = static_cast<std::uint32_t>(word);
  scheduler_->Point(BesideDeviceWide(
      Touches(StreamProgressObject(0), false, ObjectId(ObjectKind::kHostWord, w), false)));
  if (scheduler_->tearing_down() || !ValidHostWord(word)) return 0;
  return host_words_[w - 1].value;
}

}  // namespace stackcheck::sim
