// The SimDevice's calls that put work on streams, and the streams and events
// themselves: modules and launches, stream callbacks and host functions,
// event records and waits, stream-ordered writes to host memory.

#include "sim/event_payloads.h"
#include "sim/sim_device_call.h"

namespace stackcheck::sim {

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
  scheduler_->Log(
      EventKind::kKernelEnqueue,
      payload::KernelLaunch{
          {op.id, s, args.region_tag, op.slots}, args.stacks, args.stack_size_per_warp});
  if (args.vars != 0 || args.data != 0) {
    scheduler_->Log(EventKind::kKernelVars, payload::KernelVars{op.id, args.vars, args.data});
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
  scheduler_->Log(EventKind::kEventRecord, payload::CudaEvent{e, s});
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
