#include "sim/sim_device.h"

#include "sim/event_payloads.h"
#include "sim/sim_device_call.h"

namespace stackcheck::sim {

namespace {

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

}  // namespace

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
  scheduler_->Log(EventKind::kDriverCallBlock, payload::Call{call.api(), call.flags()});
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

}  // namespace stackcheck::sim
