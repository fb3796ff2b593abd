// core/device.h as a deterministic fake GPU: the CUDA semantics SEM-01..16 of
// docs/cuda-semantics.md.
//
// Each stream is a FIFO of operations (kernels, callbacks, host functions,
// event records, stream waits, stream-ordered frees) and a GPU actor of the
// scheduler: its steps start and end kernels, hand callbacks to the callback
// thread, complete records and frees. Host calls are scheduling points; calls
// that wait (synchronise, cuMemFree in its waiting mode, cuCtxDestroy) block
// their fiber with a wait reason the deadlock report can follow.
//
// Device addresses are never reused within an execution, so a stale pointer is
// always recognisable. Allocation sizes round up to the configured granularity.
#ifndef STACKCHECK_SIM_SIM_DEVICE_H_
#define STACKCHECK_SIM_SIM_DEVICE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/device.h"
#include "sim/driver_api.h"
#include "sim/scheduler.h"
#include "sim/sim_config.h"

namespace stackcheck::sim {

// A stream's two footprint objects (sim/strategies/README.md): what is
// enqueued on it, which host calls append to, and what has completed, which
// its GPU steps advance. A launch and another kernel's end touch different
// halves, so they commute; "the stream is idle" reads both.
inline std::uint32_t StreamEnqueuedObject(std::uint32_t stream) {
  return ObjectId(ObjectKind::kStream, stream);
}
inline std::uint32_t StreamProgressObject(std::uint32_t stream) {
  return ObjectId(ObjectKind::kStreamProgress, stream);
}

class SimDevice final : public Device, public GpuModel {
 public:
  explicit SimDevice(Scheduler* scheduler) : scheduler_(scheduler) {}

  void set_config(const SimConfig& config) { config_ = config; }
  // Resets the device and creates its actors: the serial callback thread (if
  // that mode is on) and the legacy stream's GPU actor.
  void BeginExecution();

  CuResult sticky() const { return sticky_; }
  // Runs a kernel's code when the kernel starts (KernelArgs::body, nonzero):
  // kTrap makes the kernel trap at its end, as a device-side abort does
  // (SEM-04). A simulated program's driver (sim/libcuda) sets it; models
  // have no code to run. Kept across executions.
  using KernelBodyRunner = KernelAction (*)(std::uint64_t body);
  void set_kernel_body_runner(KernelBodyRunner runner) { kernel_body_runner_ = runner; }
  // The next cuMemAlloc fails with OUT_OF_MEMORY, as the config's
  // alloc_failure_at_call makes a counted one fail: a simulated program's
  // driver counts the program's own calls (its module loads allocate too).
  void FailNextAllocation() { fail_next_allocation_ = true; }
  std::uint64_t live_bytes() const { return live_bytes_; }
  // This execution's allocations (frees not subtracted) outgrew the capacity
  // while footprints took allocations to commute: see AllocFootprint.
  bool capacity_premise_broken() const;

  // Device
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

  // GpuModel
  bool StreamStepReady(std::uint32_t stream, Footprint* next) override;
  void StreamStep(std::uint32_t stream) override;
  bool WaitSatisfied(const WaitReason& reason) override;
  bool CallbackWorkReady(Footprint* next) override;
  bool sticky_error() const override { return sticky_ != CuResult::kSuccess; }
  std::uint64_t ChargedBytes(std::uint64_t bytes) const override { return Charge(bytes); }
  std::uint64_t FreeBytes() const override {
    return config_.device_capacity > live_bytes_ ? config_.device_capacity - live_bytes_ : 0;
  }
  void DeviceWaitEdges(ActorId waiter, const WaitReason& reason,
                       std::vector<WaitEdge>* out) override;
  void StreamWaitEdges(std::uint32_t stream, std::vector<WaitEdge>* out) override;

 private:
  enum class OpKind : std::uint8_t {
    kKernel,
    kCallback,
    kHostFn,
    kEventRecord,
    kWaitEvent,
    kAsyncFree,
    kWriteValue,
  };
  enum class Phase : std::uint8_t {
    kQueued,
    kStarted,  // a kernel running; a callback handed to its thread
    kRunning,  // a callback or host function executing on its thread
  };
  struct Op {
    OpKind kind = OpKind::kKernel;
    Phase phase = Phase::kQueued;
    std::uint64_t seq = 0;    // global enqueue order (legacy barrier)
    std::uint32_t id = 0;     // kernel / callback / host-fn id; record id
    std::uint32_t event = 0;  // kEventRecord, kWaitEvent: the event's index;
                              // kWriteValue: the word's
    std::uint32_t slots = 0;  // kernel: warp slots
    std::uint64_t start_ns = 0;
    KernelArgs args;
    StreamCallbackFn callback = nullptr;
    HostFn host_fn = nullptr;
    void* user_data = nullptr;
    DevicePtr ptr = 0;             // kAsyncFree; kWriteValue: the value
    std::uint32_t block = 0;       // kernel: footprint object of its stacks' block (0: none)
    std::uint32_t vars_block = 0;  // kernel: its variable table's block (0: none)
    std::uint32_t launch = 0;      // kernel: footprint object of its launch call
    ActorId runner = kNoActor;     // the callback's actor once handed over
  };
  struct Stream {
    bool live = false;
    bool legacy = false;
    bool blocking = true;
    ActorId actor = kNoActor;
    std::vector<Op> ops;  // ops[head..] are pending; the rest is reusable
    std::size_t head = 0;
    // Which step made the front op the front: the front op's first step
    // must conflict with it when that was another actor's step (it enabled
    // this stream's actor), so that DPOR sees the enabling (sim_gpu.cc).
    enum class FrontBy : std::uint8_t {
      kOwnStep,         // this stream's GPU step popped the op before it
      kEnqueue,         // the op was enqueued on an idle stream
      kCallbackThread,  // a callback before it ended
    };
    FrontBy front_by = FrontBy::kEnqueue;
    bool empty() const { return head == ops.size(); }
    Op& front() { return ops[head]; }
    void pop() {
      if (++head == ops.size()) ops.clear(), head = 0;
    }
  };
  struct Block {
    std::uint64_t bytes = 0;    // requested
    std::uint64_t charged = 0;  // rounded to the granularity
    bool async = false;         // cuMemAllocAsync: frees never synchronise
    bool free_pending = false;  // a cuMemFreeAsync is queued
  };
  struct EventState {
    bool live = false;
    std::uint32_t record = 0;  // latest record id, 0 = never recorded
  };
  struct HostWord {
    bool live = false;
    std::uint32_t value = 0;
  };
  struct PendingCallback {
    std::uint32_t stream;
    std::uint64_t seq;
  };
  enum class Context : std::uint8_t { kNone, kLive, kDestroying, kDestroyed };
  class Call;

  // Checks, in the driver's order, whether a call may proceed.
  CuResult Admit(DriverCall api, bool needs_context) const;
  // The footprint a call declares: `step`, what it touches on a healthy
  // context, or only a read of the context once Admit refuses it.
  Footprint CallFootprint(DriverCall api, const Footprint& step) const;
  bool ValidStream(StreamHandle stream) const;
  bool ValidEvent(EventHandle event) const;
  bool ValidHostWord(HostWordHandle word) const;
  // Footprints (the scheme is in sim/strategies/README.md). Steps on the
  // legacy stream, the only one the policies use, get precise footprints;
  // steps on other streams, and legacy steps while the legacy barrier orders
  // other blocking streams, are global, so that "every stream idle" can be
  // read through the legacy stream's two objects alone.
  bool PreciseStream(std::uint32_t stream) const { return stream == 0 && !extra_blocking_streams_; }
  Footprint OnStream(std::uint32_t stream, const Footprint& precise) const {
    return PreciseStream(stream) ? precise : GlobalFootprint();
  }
  Footprint EnqueueFootprint(std::uint32_t stream) const;
  bool AllocationsCommute() const;
  Footprint AllocFootprint() const;
  // Reads whether the legacy stream (so every stream: see above) is idle.
  Footprint IdleFootprint() const;
  // The same, for a call that waits until the stream is idle.
  Footprint WaitIdleFootprint() const;
  Footprint CallbackStepFootprint(std::uint32_t stream) const;
  // A kernel's steps on its stream: its start (reading its blocks) and its
  // end (advancing the stream's `progress`).
  static Footprint KernelStartFootprint(const Op& op, Stream::FrontBy front_by, bool precise,
                                        std::uint32_t progress);
  static Footprint KernelEndFootprint(const Op& op, bool precise, std::uint32_t progress);
  Footprint LaunchFootprint(std::uint32_t stream, DevicePtr stacks, std::uint32_t launch) const;
  // A footprint object for the launch call the current actor is making:
  // (actor, how many launches it made before), known before the call runs.
  std::uint32_t NextLaunchObject();
  Footprint FreeFootprint(DevicePtr ptr) const;
  // The footprint object of the live block holding `address`, 0 if none.
  std::uint32_t HoldingBlockObject(DevicePtr address) const;
  Op& Enqueue(std::uint32_t stream, OpKind kind);
  bool BarrierClear(std::uint32_t stream, std::uint64_t seq) const;
  bool AllIdle() const;
  void WaitUntil(const Call& call, const WaitReason& reason, Footprint step);
  void Poison(CuResult code);
  void EndKernel(std::uint32_t stream);
  void Dispatch(std::uint32_t stream);
  void CallbackThreadBody();
  void RunCallback(std::uint32_t stream, std::uint64_t seq);
  std::uint32_t NewStream(bool legacy, bool blocking);
  std::uint64_t Charge(std::uint64_t bytes) const;
  CuResult Allocate(DevicePtr* ptr, std::uint64_t bytes, bool async);
  CuResult Copy(DriverCall api, DevicePtr device_ptr, std::uint64_t bytes);
  void ReleaseBlock(DevicePtr ptr);

  Scheduler* const scheduler_;
  SimConfig config_;

  bool initialized_ = false;
  Context context_ = Context::kNone;
  ActorId destroyer_ = kNoActor;
  CuResult sticky_ = CuResult::kSuccess;
  KernelBodyRunner kernel_body_runner_ = nullptr;
  bool fail_next_allocation_ = false;
  std::vector<Stream> streams_;  // [0] is the legacy stream; slots reused
  std::size_t stream_count_ = 0;
  bool extra_blocking_streams_ = false;
  std::vector<EventState> events_;
  std::vector<std::uint8_t> record_done_;  // by record id
  std::vector<HostWord> host_words_;       // handle i+1 is host_words_[i]
  absl::flat_hash_map<DevicePtr, Block> blocks_;
  absl::flat_hash_set<DevicePtr> stale_;  // blocks of a destroyed context
  std::uint64_t live_bytes_ = 0;
  std::vector<DevicePtr> next_by_actor_;  // offset of each actor's next block
  // What the allocations that reached the capacity check asked for, frees not
  // subtracted: more than the capacity, some order of them could fail.
  std::uint64_t attempted_ever_ = 0;
  std::uint32_t alloc_calls_ = 0;
  std::uint32_t launch_calls_ = 0;
  std::uint32_t modules_loaded_ = 0;  // bit i: module handle i+1 loaded
  std::uint32_t next_module_ = 0;
  std::uint32_t next_kernel_ = 0;
  std::vector<std::uint32_t> launches_by_actor_;  // NextLaunchObject's counts
  std::uint32_t next_callback_ = 0;
  std::uint64_t next_seq_ = 0;
  ActorId callback_thread_ = kNoActor;
  std::vector<PendingCallback> callback_queue_;  // serial mode
  std::size_t callback_head_ = 0;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_SIM_DEVICE_H_
