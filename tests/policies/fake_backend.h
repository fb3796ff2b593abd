// A small, sequential Device and Host for unit tests of the policies and the
// runtime, independent of the simulator.
//
// Sequential means: Host::Spawn runs the thread's body to completion at once;
// the GPU does nothing until someone waits (synchronise, query, a waiting
// cuMemFree, context destruction), and then every queued operation completes
// in order - kernels end (a kTrap kernel poisons the context with
// LAUNCH_FAILED, and later kernels are dropped), stream callbacks run on a
// separate "driver callback thread" id with the context's status, events
// complete. All streams share one FIFO queue. A wait that only another thread
// could end cannot be served sequentially: a thread that finds a mutex held
// first lets the GPU drain (a stream callback may release it, as in V1a);
// if it is still held, Lock throws HostHang - for these tests, a deadlock.
//
// The fake checks what it can see and records violations rather than
// crashing: a kernel launched on, or freed while queued on, memory that is not
// a live allocation; a driver call from callback context; a mutex unlocked by
// a non-owner or destroyed while held. Host::Exit runs the exit handlers and
// throws ProcessExited.
#ifndef STACKCHECK_TESTS_POLICIES_FAKE_BACKEND_H_
#define STACKCHECK_TESTS_POLICIES_FAKE_BACKEND_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/device.h"
#include "core/driver_call.h"
#include "core/host.h"
#include "core/observer.h"

namespace stackcheck::testing {

// A wait that a sequential run can never see end.
struct HostHang : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Host::Exit ran the exit handlers; the simulated process is over.
struct ProcessExited {
  int status;
};

// Host::Crash: the process died of `signal`; no exit handler ran.
struct ProcessCrashed {
  int signal;
};

class FakeHost : public Host {
 public:
  static constexpr ThreadId kMainThread = 1;
  static constexpr ThreadId kCallbackThread = 999;

  std::unique_ptr<Mutex> NewMutex(absl::string_view name) override;
  ThreadId CurrentThread() override { return current_; }
  ThreadId Spawn(absl::string_view name, std::function<void()> body) override;
  void Join(ThreadId thread) override;
  void SleepFor(absl::Duration d) override { slept_ += d; }
  void Yield() override {}
  void AtExit(std::function<void()> handler) override;
  [[noreturn]] void Exit(int status) override;
  [[noreturn]] void Crash(int signal) override { throw ProcessCrashed{signal}; }

  // What a thread blocked on a held mutex can hope for in a sequential world:
  // that the GPU drains and a stream callback releases it. Set by FakeDevice.
  void SetOnBlock(std::function<void()> on_block) { on_block_ = std::move(on_block); }
  void OnBlock() {
    if (on_block_) on_block_();
  }

  // Runs `fn` once, right after the next unlock of a mutex named `mutex`:
  // another thread's step in the window after a section (a sequential run's
  // only way to put one there).
  void AfterNextUnlock(absl::string_view mutex, std::function<void()> fn) {
    after_unlock_mutex_ = std::string(mutex);
    after_unlock_ = std::move(fn);
  }
  void Unlocked(absl::string_view mutex) {
    if (!after_unlock_ || mutex != after_unlock_mutex_) return;
    std::function<void()> fn = std::move(after_unlock_);
    after_unlock_ = nullptr;
    fn();
  }

  // Runs `fn` as if on thread `thread` (the fake device runs callbacks so).
  void RunAs(ThreadId thread, const std::function<void()>& fn);

  const std::vector<std::string>& violations() const { return violations_; }
  void AddViolation(std::string v) { violations_.push_back(std::move(v)); }
  bool exited() const { return exited_; }
  int exit_status() const { return exit_status_; }
  // How many times exit() was called (2: again from an exit handler).
  int exit_calls() const { return exit_calls_; }
  absl::Duration slept() const { return slept_; }

 private:
  ThreadId current_ = kMainThread;
  ThreadId next_thread_ = kMainThread + 1;
  std::vector<std::function<void()>> exit_handlers_;
  std::function<void()> on_block_;
  std::string after_unlock_mutex_;
  std::function<void()> after_unlock_;
  bool exiting_ = false;
  bool exited_ = false;
  int exit_status_ = -1;
  int exit_calls_ = 0;
  absl::Duration slept_;
  std::vector<std::string> violations_;
};

struct FakeDeviceOptions {
  std::uint64_t capacity = 1024 * 1024 * 1024ull;
  // SEM-11: cuMemFree drains the queue first (true, as observed on H200), or
  // frees at once - a free of memory a queued kernel uses is then a violation.
  bool free_waits = true;
  // The k-th (1-based) cuMemAlloc returns OUT_OF_MEMORY; 0 = never.
  std::uint32_t fail_alloc_at_call = 0;
  // The k-th (1-based) cuLaunchKernel returns LAUNCH_OUT_OF_RESOURCES.
  std::uint32_t fail_launch_at_call = 0;
  // Module look-ups of these names return NOT_FOUND (an image without them).
  std::vector<std::string> missing_kernels;
};

class FakeDevice : public Device {
 public:
  FakeDevice(FakeHost& host, FakeDeviceOptions options = {});

  CuResult Init() override { return Call(DriverCall::kInit); }
  CuResult CtxCreate() override { return Call(DriverCall::kCtxCreate); }
  CuResult CtxDestroy() override;
  CuResult CtxSynchronize() override;
  CuResult MemAlloc(DevicePtr* ptr, std::uint64_t bytes) override;
  CuResult MemFree(DevicePtr ptr) override;
  CuResult MemGetInfo(MemInfo* info) override;
  CuResult MemAllocAsync(DevicePtr*, std::uint64_t, StreamHandle) override {
    return CuResult::kNotSupported;
  }
  CuResult MemFreeAsync(DevicePtr, StreamHandle) override { return CuResult::kNotSupported; }
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

  // Lets time pass: the GPU finishes everything queued and the callback
  // thread runs every pending callback, as happens between two host calls
  // that are far enough apart.
  void Settle() { Drain(); }

  // --- what tests inspect ---
  std::uint64_t live_bytes() const;
  std::size_t live_allocations() const { return allocations_.size(); }
  // Allocations still live when the context was destroyed (leaks, unless the
  // context was poisoned first).
  std::size_t leaked_at_destroy() const { return leaked_at_destroy_; }
  bool destroyed() const { return destroyed_; }
  CuResult sticky() const { return sticky_; }
  std::uint32_t calls(DriverCall call) const;
  // Region tags of kernels that completed, in completion order.
  const std::vector<std::uint32_t>& completed_regions() const { return completed_regions_; }
  std::size_t queued() const { return queue_.size(); }

 private:
  struct Op {
    enum class Kind { kKernel, kCallback, kEvent, kWriteValue } kind;
    KernelArgs args{};
    std::uint64_t stack_bytes = 0;
    StreamCallbackFn callback = nullptr;
    void* user_data = nullptr;
    std::uint32_t event = 0;  // kWriteValue: the word
    std::uint32_t value = 0;  // kWriteValue
  };

  // Counts the call; from callback context it is a violation (SEM-09) and
  // returns NOT_PERMITTED; on a poisoned context, the sticky error.
  CuResult Call(DriverCall call, bool allowed_in_callback = false, bool context_dependent = true);
  void Drain();
  bool InAllocation(DevicePtr base, std::uint64_t bytes) const;

  FakeHost& host_;
  const FakeDeviceOptions options_;
  std::map<DevicePtr, std::uint64_t> allocations_;
  DevicePtr next_address_ = 0x10000000;
  std::uint32_t alloc_calls_ = 0;
  std::uint32_t launch_calls_ = 0;
  std::deque<Op> queue_;
  bool draining_ = false;
  CuResult sticky_ = CuResult::kSuccess;
  bool destroyed_ = false;
  std::size_t leaked_at_destroy_ = 0;
  std::uint32_t next_event_ = 1;
  std::vector<std::uint32_t> host_words_;                // handle i+1; no liveness tracked
  std::array<std::uint32_t, kDriverCallCount> calls_{};  // by DriverCall
  std::vector<std::uint32_t> completed_regions_;
};

// Records what the runtime tells its observer.
struct RecordingObserver : RuntimeObserver {
  struct Fatal {
    RegionId region;
    CuResult code;
    std::string message;
  };
  void RegionBegin(RegionId region, std::uint64_t stacks_bytes) override {
    begun.push_back(region);
    begun_needing.push_back(stacks_bytes);
  }
  void RegionEnd(RegionId region) override { ended.push_back(region); }
  void FatalReported(RegionId region, CuResult code, absl::string_view message) override {
    fatals.push_back({region, code, std::string(message)});
  }
  void ErrorReported(CuResult code, absl::string_view message) override {
    errors.push_back({kNoRegion, code, std::string(message)});
  }
  void CacheHeld(std::uint64_t held) override { cache_held.push_back(held); }
  void Probe(absl::string_view probe) override { probes.push_back(std::string(probe)); }
  bool Probed(absl::string_view probe) const;

  std::vector<RegionId> begun, ended;
  std::vector<std::uint64_t> begun_needing;  // by begun region: its stacks bytes
  std::vector<Fatal> fatals;
  std::vector<Fatal> errors;  // non-fatal messages (region unused)
  std::vector<std::uint64_t> cache_held;
  std::vector<std::string> probes;
};

}  // namespace stackcheck::testing

#endif  // STACKCHECK_TESTS_POLICIES_FAKE_BACKEND_H_
