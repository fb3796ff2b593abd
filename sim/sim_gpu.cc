// The GPU side of SimDevice: what each stream's actor can do next, the steps
// themselves (SEM-01 FIFO order, SEM-02 legacy barrier, SEM-04 kernel
// lifetime, SEM-06 poisoning, SEM-07/08 callbacks), and the wait-for edges a
// deadlock report follows through streams and the callback thread.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sim/event_payloads.h"
#include "sim/sim_device.h"

namespace stackcheck::sim {

bool SimDevice::BarrierClear(std::uint32_t stream, std::uint64_t seq) const {
  const Stream& s = streams_[stream];
  if (!s.blocking) return true;
  if (s.legacy) {
    // Legacy work waits for all earlier work in every blocking stream.
    for (std::size_t i = 1; i < stream_count_; ++i) {
      const Stream& t = streams_[i];
      if (t.blocking && !t.empty() && t.ops[t.head].seq < seq) return false;
    }
    return true;
  }
  // Blocking-stream work waits for earlier legacy work.
  const Stream& legacy = streams_[0];
  return legacy.empty() || legacy.ops[legacy.head].seq > seq;
}

Footprint SimDevice::KernelStartFootprint(const Op& op, Stream::FrontBy front_by, bool precise,
                                          std::uint32_t progress) {
  // The start changes neither the queue's length nor anything a host
  // call reads; it puts warps on the block's stack slots, which a free
  // of the block must see (no-use-after-free). It only reads the block:
  // launches read it too, and two kernels of one stream never start
  // out of order (no-stack-overlap judges only overlap in time).
  // If another actor's step made the stream runnable again, the start
  // must conflict with that step: it reads its launch's own object if
  // the kernel was enqueued on an idle stream, or the progress a
  // callback's end wrote. Behind this stream's own step it follows in
  // program order, and commutes with later launches.
  if (!precise || op.block == 0) return GlobalFootprint();
  // A variable table's block is read like the stacks' block.
  const std::uint32_t vars = op.vars_block;
  switch (front_by) {
    case Stream::FrontBy::kOwnStep:
      return vars != 0 ? Touches(op.block, false, vars, false) : Touches(op.block, false);
    case Stream::FrontBy::kEnqueue:
      return vars != 0 ? Touches(op.block, false, op.launch, false, vars, false)
                       : Touches(op.block, false, op.launch, false);
    case Stream::FrontBy::kCallbackThread:
      return vars != 0 ? Touches(op.block, false, progress, false, vars, false)
                       : Touches(op.block, false, progress, false);
  }
  return GlobalFootprint();
}

Footprint SimDevice::KernelEndFootprint(const Op& op, bool precise, std::uint32_t progress) {
  if (op.args.action == KernelAction::kTrap && precise && op.block != 0) {
    // A trapping kernel's end poisons the whole context (SEM-06): every
    // stream, every pending record, the sticky error every driver call
    // reads; but no host state, and a GPU step runs no policy code.
    return DeviceWideFootprint();
  }
  if (!precise || op.block == 0 || op.args.action == KernelAction::kTrap) {
    return GlobalFootprint();
  }
  // The end advances the stream's progress (what synchronising calls
  // and completion-word loads read) and takes the warps off the block
  // (read: only a free of the block conflicts). It leaves what is
  // enqueued alone, so it commutes with launches.
  return op.vars_block != 0 ? Touches(progress, true, op.block, false, op.vars_block, false)
                            : Touches(progress, true, op.block, false);
}

bool SimDevice::StreamStepReady(std::uint32_t stream, Footprint* next) {
  Stream& s = streams_[stream];
  if (s.empty()) return false;
  const Op& op = s.front();
  // Only legacy-stream steps get precise footprints (see PreciseStream).
  const bool precise = PreciseStream(stream);
  const std::uint32_t enqueued = StreamEnqueuedObject(stream);
  const std::uint32_t progress = StreamProgressObject(stream);
  switch (op.kind) {
    case OpKind::kKernel:
      if (op.phase == Phase::kQueued) {
        if (!BarrierClear(stream, op.seq)) return false;
        *next = KernelStartFootprint(op, s.front_by, precise, progress);
      } else {
        *next = KernelEndFootprint(op, precise, progress);
      }
      if (precise) next->blocking |= kStreamWork;
      return true;
    case OpKind::kCallback:
    case OpKind::kHostFn:
      // Once handed to its thread, the stream waits for the callback (SEM-08).
      if (op.phase != Phase::kQueued || !BarrierClear(stream, op.seq)) return false;
      *next = precise ? Blocking(Touches(enqueued, true, progress, true,
                                         ObjectId(ObjectKind::kCallbackThread, 0), true),
                                 kStreamWork)
                      : GlobalFootprint();
      return true;
    case OpKind::kEventRecord:
      if (!BarrierClear(stream, op.seq)) return false;
      *next = precise ? Blocking(Touches(enqueued, true, progress, true,
                                         ObjectId(ObjectKind::kEvent, op.event), true),
                                 kStreamWork)
                      : GlobalFootprint();
      return true;
    case OpKind::kWaitEvent:
      if (!BarrierClear(stream, op.seq) || !record_done_[op.id]) return false;
      // Enabled by the record's completion, which writes the event.
      *next = precise ? Blocking(Touches(enqueued, true, progress, true,
                                         ObjectId(ObjectKind::kEvent, op.event), false),
                                 kStreamWork)
                      : GlobalFootprint();
      return true;
    case OpKind::kAsyncFree:
      if (!BarrierClear(stream, op.seq)) return false;
      // The stream, the allocator and the block: more than a footprint holds.
      *next = GlobalFootprint();
      return true;
    case OpKind::kWriteValue:
      if (!BarrierClear(stream, op.seq)) return false;
      *next = precise ? Blocking(Touches(enqueued, true, progress, true,
                                         ObjectId(ObjectKind::kHostWord, op.event), true),
                                 kStreamWork)
                      : GlobalFootprint();
      return true;
  }
  return false;
}

// A callback's steps (its start; its end, which pops the stream: SEM-08)
// write both halves of the stream and the callback thread.
Footprint SimDevice::CallbackStepFootprint(std::uint32_t stream) const {
  // The stream waits for the callback until its end: work pending on it.
  return OnStream(stream,
                  Blocking(Touches(StreamEnqueuedObject(stream), true, StreamProgressObject(stream),
                                   true, ObjectId(ObjectKind::kCallbackThread, 0), true),
                           kStreamWork));
}

void SimDevice::StreamStep(std::uint32_t stream) {
  scheduler_->DeviceChanged();  // every GPU step moves its stream's queue
  Stream& s = streams_[stream];
  // Whatever this step pops, the next op becomes the front by it.
  s.front_by = Stream::FrontBy::kOwnStep;
  Op& op = s.front();
  switch (op.kind) {
    case OpKind::kKernel:
      if (op.phase == Phase::kQueued) {
        // From here until its end the kernel's warps use their stack slots.
        op.phase = Phase::kStarted;
        // Its code runs now; what it does is visible once it ends (a copy
        // waits for the kernel, SEM-02), and a trap in it ends it trapping.
        if (op.args.body != 0 && kernel_body_runner_ != nullptr &&
            op.args.action == KernelAction::kRun &&
            kernel_body_runner_(op.args.body) == KernelAction::kTrap) {
          op.args.action = KernelAction::kTrap;
        }
        op.start_ns = scheduler_->now();
        scheduler_->Log(EventKind::kKernelStart,
                        payload::KernelLaunch{{op.id, stream, op.args.region_tag, op.slots},
                                              op.args.stacks,
                                              op.args.stack_size_per_warp});
      } else {
        EndKernel(stream);
      }
      return;
    case OpKind::kCallback:
    case OpKind::kHostFn:
      Dispatch(stream);
      return;
    case OpKind::kEventRecord: {
      record_done_[op.id] = 1;
      const std::uint32_t event = op.event;
      s.pop();
      scheduler_->Log(EventKind::kEventComplete, payload::CudaEvent{event, stream});
      return;
    }
    case OpKind::kWaitEvent:
      s.pop();
      return;
    case OpKind::kWriteValue: {
      const std::uint32_t word = op.event;
      const auto value = static_cast<std::uint32_t>(op.ptr);
      s.pop();
      // The word may have been freed after the write was queued: on hardware
      // that is a fault; here the write is simply lost (a runtime must not do
      // it, and none of ours does).
      if (word >= 1 && word <= host_words_.size() && host_words_[word - 1].live) {
        host_words_[word - 1].value = value;
      }
      scheduler_->Log(EventKind::kHostWordWrite, payload::HostWordWrite{word, stream, value});
      return;
    }
    case OpKind::kAsyncFree: {
      const DevicePtr ptr = op.ptr;
      s.pop();
      auto it = blocks_.find(ptr);
      if (it == blocks_.end()) return;  // the context was destroyed meanwhile
      const std::uint64_t bytes = it->second.bytes;
      ReleaseBlock(ptr);
      scheduler_->Log(EventKind::kAsyncFreeComplete, payload::Block{ptr, bytes});
      return;
    }
  }
}

void SimDevice::EndKernel(std::uint32_t stream) {
  Stream& s = streams_[stream];
  const Op op = s.front();
  s.pop();
  // SEM-04: the end comes no earlier than start + duration (virtual time).
  scheduler_->AdvanceTo(op.start_ns + op.args.duration_ns);
  CuResult result = CuResult::kSuccess;
  if (op.args.action == KernelAction::kTrap) {
    result = config_.modes.trap_code;
  } else if (sticky_ != CuResult::kSuccess) {
    result = sticky_;  // ran on in a context another kernel poisoned
  }
  scheduler_->Log(EventKind::kKernelEnd,
                  payload::KernelEnd{{op.id, stream, op.args.region_tag, op.slots}, result});
  if (op.args.action == KernelAction::kTrap) {
    Poison(config_.modes.trap_code);
  } else if (result == CuResult::kSuccess) {
    // EXT-02: the last block's epilogue writes the completion word.
    const auto word = static_cast<std::uint32_t>(op.args.completion_word);
    if (word >= 1 && word <= host_words_.size() && host_words_[word - 1].live) {
      host_words_[word - 1].value = op.args.completion_value;
      scheduler_->Log(EventKind::kHostWordWrite,
                      payload::HostWordWrite{word, stream, op.args.completion_value});
    }
  }
}

void SimDevice::Poison(CuResult code) {
  if (sticky_ != CuResult::kSuccess) return;  // absorbing: the first error stays
  sticky_ = code;
  scheduler_->Log(EventKind::kStickyError, payload::StickyError{code});
  // SEM-06, on every stream: callbacks not yet run stay (they will run with the
  // error status), device work ahead of them is dropped, host functions not
  // yet started are dropped. Kernels already running finish.
  for (std::uint32_t i = 0; i < stream_count_; ++i) {
    Stream& s = streams_[i];
    std::size_t keep = s.head;
    for (std::size_t j = s.head; j < s.ops.size(); ++j) {
      Op& op = s.ops[j];
      bool kept = false;
      switch (op.kind) {
        case OpKind::kKernel:
          kept = op.phase != Phase::kQueued;
          if (!kept)
            scheduler_->Log(EventKind::kKernelDropped,
                            payload::Kernel{op.id, i, op.args.region_tag, op.slots});
          break;
        case OpKind::kCallback:
          kept = true;
          break;
        case OpKind::kHostFn:
          kept = op.phase == Phase::kRunning;
          if (!kept) scheduler_->Log(EventKind::kHostFnDropped, payload::StreamWork{i, op.id});
          break;
        case OpKind::kEventRecord:
          record_done_[op.id] = 1;  // nothing will ever complete it otherwise
          break;
        case OpKind::kWaitEvent:
        case OpKind::kAsyncFree:
          break;  // dropped: the block is never freed (SEM-05)
        case OpKind::kWriteValue:
          break;  // dropped: the word keeps the last value written (EXT-01)
      }
      if (kept) s.ops[keep++] = op;
    }
    s.ops.resize(keep);
    if (s.head == s.ops.size()) s.ops.clear(), s.head = 0;
  }
  // The serial callback thread forgets host functions it had not started.
  std::size_t keep = callback_head_;
  for (std::size_t j = callback_head_; j < callback_queue_.size(); ++j) {
    const PendingCallback& p = callback_queue_[j];
    const Stream& s = streams_[p.stream];
    if (!s.empty() && s.ops[s.head].seq == p.seq) callback_queue_[keep++] = p;
  }
  callback_queue_.resize(keep);
  scheduler_->CallbackWorkChanged();
}

void SimDevice::Dispatch(std::uint32_t stream) {
  Op& op = streams_[stream].front();
  op.phase = Phase::kStarted;
  const std::uint64_t seq = op.seq;
  if (config_.modes.serial_callback_thread) {
    op.runner = callback_thread_;
    callback_queue_.push_back(PendingCallback{stream, seq});
    scheduler_->CallbackWorkChanged();
  } else {
    // Concurrent mode: each callback on a thread of its own, unordered. Its
    // first step starts the callback: it touches the stream.
    op.runner = scheduler_->SpawnFiber(ActorKind::kCallbackWorker,
                                       [this, stream, seq] { RunCallback(stream, seq); });
    scheduler_->set_first_step(op.runner, CallbackStepFootprint(stream));
  }
}

void SimDevice::CallbackThreadBody() {
  // Created blocked on kCallbackWork: the first resume has work.
  for (;;) {
    while (callback_head_ == callback_queue_.size()) {
      scheduler_->Block(WaitReason{WaitKind::kCallbackWork}, Footprint{});
    }
    scheduler_->CallbackWorkChanged();
    const PendingCallback p = callback_queue_[callback_head_++];
    if (callback_head_ == callback_queue_.size()) {
      callback_queue_.clear();
      callback_head_ = 0;
    }
    RunCallback(p.stream, p.seq);
  }
}

void SimDevice::RunCallback(std::uint32_t stream, std::uint64_t seq) {
  {
    Stream& s = streams_[stream];
    // Dropped after dispatch (a host function when the context was poisoned).
    if (s.empty() || s.front().seq != seq) return;
  }
  scheduler_->DeviceChanged();
  Op& front = streams_[stream].front();
  front.phase = Phase::kRunning;
  const Op op = front;  // the stream's vector may grow while it runs
  // Its end pops the stream: global off the legacy stream, like every step there.
  const Footprint step = CallbackStepFootprint(stream);
  if (op.kind == OpKind::kCallback) {
    // SEM-06: a poisoned context hands its error to every callback.
    const CuResult status = sticky_;
    scheduler_->Log(EventKind::kCallbackStart, payload::StreamWork{stream, op.id, status});
    op.callback(static_cast<StreamHandle>(stream), status, op.user_data);
    scheduler_->Point(step);
    scheduler_->Log(EventKind::kCallbackEnd, payload::StreamWork{stream, op.id});
  } else {
    scheduler_->Log(EventKind::kHostFnStart, payload::StreamWork{stream, op.id});
    op.host_fn(op.user_data);
    scheduler_->Point(step);
    scheduler_->Log(EventKind::kHostFnEnd, payload::StreamWork{stream, op.id});
  }
  // SEM-08: only now may later work in the stream start.
  scheduler_->DeviceChanged();
  streams_[stream].pop();
  streams_[stream].front_by = Stream::FrontBy::kCallbackThread;
}

bool SimDevice::CallbackWorkReady(Footprint* next) {
  if (callback_head_ == callback_queue_.size()) return false;
  const std::uint32_t stream = callback_queue_[callback_head_].stream;
  *next = CallbackStepFootprint(stream);
  return true;
}

bool SimDevice::WaitSatisfied(const WaitReason& reason) {
  switch (reason.kind) {
    case WaitKind::kStreamIdle:
      return streams_[reason.object].empty();
    case WaitKind::kAllStreamsIdle:
      return AllIdle();
    case WaitKind::kAllStreamsIdleOrFault:
      return AllIdle() || sticky_ != CuResult::kSuccess;
    case WaitKind::kEvent:
      return record_done_[reason.object] != 0;
    default:
      return true;
  }
}

// --- wait-for edges --------------------------------------------------------------

void SimDevice::DeviceWaitEdges(ActorId waiter, const WaitReason& reason,
                                std::vector<WaitEdge>* out) {
  const absl::string_view who = scheduler_->ActorName(waiter);
  const absl::string_view call = DriverCallName(reason.call);
  switch (reason.kind) {
    case WaitKind::kStreamIdle:
      out->push_back(WaitEdge{
          streams_[reason.object].actor,
          absl::StrCat(who, " waits in ", call, " for gpu:s", reason.object, " to drain")});
      return;
    case WaitKind::kAllStreamsIdle:
    case WaitKind::kAllStreamsIdleOrFault:
      for (std::uint32_t i = 0; i < stream_count_; ++i) {
        if (streams_[i].empty()) continue;
        out->push_back(WaitEdge{streams_[i].actor, absl::StrCat(who, " waits in ", call,
                                                                " for gpu:s", i, " to drain")});
      }
      return;
    case WaitKind::kEvent:
      for (std::uint32_t i = 0; i < stream_count_; ++i) {
        const Stream& s = streams_[i];
        for (std::size_t j = s.head; j < s.ops.size(); ++j) {
          if (s.ops[j].kind == OpKind::kEventRecord && s.ops[j].id == reason.object) {
            out->push_back(WaitEdge{s.actor, absl::StrCat(who, " waits in ", call,
                                                          " for an event recorded on gpu:s", i)});
          }
        }
      }
      return;
    default:
      return;
  }
}

void SimDevice::StreamWaitEdges(std::uint32_t stream, std::vector<WaitEdge>* out) {
  Stream& s = streams_[stream];
  if (s.empty()) return;
  const Op& op = s.front();
  const std::string name = absl::StrCat("gpu:s", stream);
  if ((op.kind == OpKind::kCallback || op.kind == OpKind::kHostFn) && op.phase != Phase::kQueued) {
    const char* what = op.kind == OpKind::kCallback ? "callback" : "host function";
    const absl::string_view runner = scheduler_->ActorName(op.runner);
    if (op.phase == Phase::kRunning) {
      out->push_back(WaitEdge{
          op.runner, absl::StrCat(name, " waits for ", what, " #", op.id, " running on ", runner)});
    } else {
      out->push_back(WaitEdge{
          op.runner, absl::StrCat(name, " waits for ", runner, " to run ", what, " #", op.id)});
    }
    return;
  }
  if (op.kind == OpKind::kWaitEvent && !record_done_[op.id]) {
    for (std::uint32_t i = 0; i < stream_count_; ++i) {
      const Stream& t = streams_[i];
      for (std::size_t j = t.head; j < t.ops.size(); ++j) {
        if (t.ops[j].kind == OpKind::kEventRecord && t.ops[j].id == op.id) {
          out->push_back(
              WaitEdge{t.actor, absl::StrCat(name, " waits for an event recorded on gpu:s", i)});
        }
      }
    }
  }
  if (op.phase == Phase::kQueued && !BarrierClear(stream, op.seq)) {
    for (std::uint32_t i = 0; i < stream_count_; ++i) {
      const Stream& t = streams_[i];
      if (i == stream || !t.blocking || t.empty() || t.ops[t.head].seq > op.seq) continue;
      if (!s.legacy && !t.legacy) continue;
      out->push_back(
          WaitEdge{t.actor, absl::StrCat(name, " waits for gpu:s", i, " (legacy-stream barrier)")});
    }
  }
}

}  // namespace stackcheck::sim
