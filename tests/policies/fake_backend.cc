#include "tests/policies/fake_backend.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::testing {
namespace {

class FakeMutex : public Mutex {
 public:
  FakeMutex(FakeHost& host, absl::string_view name) : host_(host), name_(name) {}
  ~FakeMutex() override {
    if (owner_ != kNoThread && !destroyed_) {
      host_.AddViolation(absl::StrFormat("%s destroyed while held by thread %d", name_, owner_));
    }
  }
  void Lock() override {
    if (destroyed_) return;
    const ThreadId me = host_.CurrentThread();
    if (owner_ != kNoThread) host_.OnBlock();
    if (owner_ == me) {
      throw HostHang(absl::StrFormat("%s relocked by its owner, thread %d", name_, me));
    }
    if (owner_ != kNoThread) {
      throw HostHang(
          absl::StrFormat("thread %d waits for %s, held by thread %d", me, name_, owner_));
    }
    owner_ = me;
  }
  void Unlock() override {
    if (destroyed_) return;
    const ThreadId me = host_.CurrentThread();
    if (owner_ != me) {
      host_.AddViolation(
          absl::StrFormat("%s unlocked by thread %d, owned by thread %d", name_, me, owner_));
    }
    owner_ = kNoThread;
    host_.Unlocked(name_);
  }
  bool TryLock() override {
    if (destroyed_) return true;
    if (owner_ != kNoThread) return false;
    owner_ = host_.CurrentThread();
    return true;
  }
  ThreadId Owner() const override { return owner_; }
  bool Destroy() override {
    if (owner_ != kNoThread) {
      host_.AddViolation(absl::StrFormat("%s destroyed while held by thread %d", name_, owner_));
      return false;  // EBUSY: stays locked
    }
    destroyed_ = true;
    return true;
  }

 private:
  FakeHost& host_;
  const std::string name_;
  ThreadId owner_ = kNoThread;
  bool destroyed_ = false;
};

}  // namespace

std::unique_ptr<Mutex> FakeHost::NewMutex(absl::string_view name) {
  return std::make_unique<FakeMutex>(*this, name);
}

ThreadId FakeHost::Spawn(absl::string_view, std::function<void()> body) {
  const ThreadId id = next_thread_++;
  RunAs(id, body);
  return id;
}

void FakeHost::Join(ThreadId thread) {
  if (thread == kNoThread || thread >= next_thread_) {
    AddViolation(absl::StrCat("join of unknown thread ", thread));
  }
}

void FakeHost::AtExit(std::function<void()> handler) {
  exit_handlers_.push_back(std::move(handler));
}

void FakeHost::Exit(int status) {
  // glibc: a second exit() (libgomp's "device finalization failed" from
  // inside its exit handler) goes on with the handlers not yet started and
  // ends the process with its own status.
  exiting_ = true;
  exit_status_ = status;
  ++exit_calls_;
  while (!exit_handlers_.empty()) {
    std::function<void()> handler = std::move(exit_handlers_.back());
    exit_handlers_.pop_back();
    handler();
  }
  exited_ = true;
  throw ProcessExited{status};
}

void FakeHost::RunAs(ThreadId thread, const std::function<void()>& fn) {
  const ThreadId saved = current_;
  current_ = thread;
  struct Restore {
    FakeHost* host;
    ThreadId saved;
    ~Restore() { host->current_ = saved; }
  } restore{this, saved};
  fn();
}

FakeDevice::FakeDevice(FakeHost& host, FakeDeviceOptions options) : host_(host), options_(options) {
  host_.SetOnBlock([this] { Drain(); });
}

CuResult FakeDevice::Call(DriverCall call, bool allowed_in_callback, bool context_dependent) {
  ++calls_[static_cast<std::size_t>(call)];
  if (host_.CurrentThread() == FakeHost::kCallbackThread && !allowed_in_callback) {
    host_.AddViolation(absl::StrCat(DriverCallName(call), " called from a stream callback"));
    return CuResult::kNotPermitted;
  }
  if (destroyed_ && context_dependent) return CuResult::kContextIsDestroyed;
  if (context_dependent && sticky_ != CuResult::kSuccess) return sticky_;
  return CuResult::kSuccess;
}

void FakeDevice::Drain() {
  if (draining_) return;  // a callback waiting on its own queue: caught by Call
  draining_ = true;
  struct Done {
    bool* flag;
    ~Done() { *flag = false; }
  } done{&draining_};
  while (!queue_.empty()) {
    Op op = queue_.front();
    queue_.pop_front();
    switch (op.kind) {
      case Op::Kind::kKernel:
        if (sticky_ != CuResult::kSuccess) break;  // dropped (SEM-06)
        if (!InAllocation(op.args.stacks, op.stack_bytes)) {
          host_.AddViolation(absl::StrFormat("kernel of region %d ran on freed stack memory 0x%x",
                                             op.args.region_tag, op.args.stacks));
        }
        if (op.args.action == KernelAction::kTrap) {
          sticky_ = CuResult::kLaunchFailed;
        } else {
          completed_regions_.push_back(op.args.region_tag);
          const auto w = static_cast<std::uint32_t>(op.args.completion_word);
          if (w >= 1 && w <= host_words_.size()) {
            host_words_[w - 1] = op.args.completion_value;  // EXT-02
          }
        }
        break;
      case Op::Kind::kCallback: {
        const CuResult status = sticky_;
        host_.RunAs(FakeHost::kCallbackThread,
                    [&] { op.callback(kLegacyStream, status, op.user_data); });
        break;
      }
      case Op::Kind::kEvent:
        break;
      case Op::Kind::kWriteValue:
        if (sticky_ != CuResult::kSuccess) break;  // dropped, as device work
        host_words_[op.event - 1] = op.value;
        break;
    }
  }
}

bool FakeDevice::InAllocation(DevicePtr base, std::uint64_t bytes) const {
  auto it = allocations_.upper_bound(base);
  if (it == allocations_.begin()) return false;
  --it;
  return base >= it->first && base + bytes <= it->first + it->second;
}

CuResult FakeDevice::CtxDestroy() {
  CuResult r = Call(DriverCall::kCtxDestroy, false, /*context_dependent=*/false);
  if (r != CuResult::kSuccess) return r;
  Drain();
  leaked_at_destroy_ = allocations_.size();
  allocations_.clear();
  destroyed_ = true;
  return CuResult::kSuccess;
}

CuResult FakeDevice::CtxSynchronize() {
  if (CuResult r = Call(DriverCall::kCtxSynchronize, false, false); r != CuResult::kSuccess)
    return r;
  Drain();
  return sticky_;
}

CuResult FakeDevice::MemAlloc(DevicePtr* ptr, std::uint64_t bytes) {
  if (CuResult r = Call(DriverCall::kMemAlloc); r != CuResult::kSuccess) return r;
  if (bytes == 0) return CuResult::kInvalidValue;
  ++alloc_calls_;
  if (alloc_calls_ == options_.fail_alloc_at_call) return CuResult::kOutOfMemory;
  if (live_bytes() + bytes > options_.capacity) return CuResult::kOutOfMemory;
  *ptr = next_address_;
  allocations_[*ptr] = bytes;
  next_address_ += (bytes + 0xffff) / 0x10000 * 0x10000 + 0x10000;
  return CuResult::kSuccess;
}

CuResult FakeDevice::MemFree(DevicePtr ptr) {
  if (CuResult r = Call(DriverCall::kMemFree); r != CuResult::kSuccess) return r;
  if (ptr == 0) return CuResult::kSuccess;
  auto it = allocations_.find(ptr);
  if (it == allocations_.end()) return CuResult::kInvalidValue;
  if (options_.free_waits) {
    Drain();
    if (sticky_ != CuResult::kSuccess) return sticky_;
  } else {
    for (const Op& op : queue_) {
      if (op.kind == Op::Kind::kKernel && op.args.stacks < ptr + it->second &&
          ptr < op.args.stacks + op.stack_bytes) {
        host_.AddViolation(
            absl::StrFormat("block 0x%x freed while the queued kernel of region %d uses it", ptr,
                            op.args.region_tag));
      }
    }
  }
  allocations_.erase(it);
  return CuResult::kSuccess;
}

CuResult FakeDevice::MemGetInfo(MemInfo* info) {
  if (CuResult r = Call(DriverCall::kMemGetInfo); r != CuResult::kSuccess) return r;
  info->total_bytes = options_.capacity;
  info->free_bytes = options_.capacity - live_bytes();
  return CuResult::kSuccess;
}

CuResult FakeDevice::ModuleLoad(ModuleHandle* module, absl::string_view image) {
  if (CuResult r = Call(DriverCall::kModuleLoad); r != CuResult::kSuccess) return r;
  if (image != kKernelImage) return CuResult::kInvalidImage;
  *module = ModuleHandle{1};
  return CuResult::kSuccess;
}

CuResult FakeDevice::ModuleUnload(ModuleHandle) { return Call(DriverCall::kModuleUnload); }

CuResult FakeDevice::ModuleGetFunction(FunctionHandle* function, ModuleHandle,
                                       absl::string_view name) {
  if (CuResult r = Call(DriverCall::kModuleGetFunction); r != CuResult::kSuccess) return r;
  if (name == kRegionKernel) {
    *function = FunctionHandle{1};
  } else if (name == kCtorDtorKernel) {
    *function = FunctionHandle{2};
  } else {
    return CuResult::kNotFound;
  }
  return CuResult::kSuccess;
}

CuResult FakeDevice::MemcpyHtoD(DevicePtr dst, const void*, std::uint64_t bytes) {
  if (CuResult r = Call(DriverCall::kMemcpyHtoD); r != CuResult::kSuccess) return r;
  Drain();  // the legacy stream's earlier work first
  if (sticky_ != CuResult::kSuccess) return sticky_;
  return InAllocation(dst, bytes) ? CuResult::kSuccess : CuResult::kInvalidValue;
}

CuResult FakeDevice::MemcpyDtoH(void*, DevicePtr src, std::uint64_t bytes) {
  if (CuResult r = Call(DriverCall::kMemcpyDtoH); r != CuResult::kSuccess) return r;
  Drain();
  if (sticky_ != CuResult::kSuccess) return sticky_;
  return InAllocation(src, bytes) ? CuResult::kSuccess : CuResult::kInvalidValue;
}

CuResult FakeDevice::LaunchKernel(FunctionHandle, Dim3 grid, Dim3 block, const KernelArgs& args,
                                  StreamHandle) {
  if (CuResult r = Call(DriverCall::kLaunchKernel); r != CuResult::kSuccess) return r;
  if (++launch_calls_ == options_.fail_launch_at_call) {
    return CuResult::kLaunchOutOfResources;
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
      std::uint64_t{block.x} * block.y * block.z > 1024) {
    return CuResult::kInvalidValue;
  }
  Op op{Op::Kind::kKernel};
  op.args = args;
  // One slot per warp: teams (grid.x) times warps per team (block.y).
  op.stack_bytes =
      std::uint64_t{grid.x} * grid.y * grid.z * block.y * block.z * args.stack_size_per_warp;
  if (!InAllocation(args.stacks, op.stack_bytes)) {
    host_.AddViolation(
        absl::StrFormat("kernel of region %d launched on 0x%x + %d bytes, not a live allocation",
                        args.region_tag, args.stacks, op.stack_bytes));
  }
  queue_.push_back(op);
  return CuResult::kSuccess;
}

CuResult FakeDevice::StreamCreate(StreamHandle* stream, StreamFlags) {
  if (CuResult r = Call(DriverCall::kStreamCreate); r != CuResult::kSuccess) return r;
  *stream = StreamHandle{1};
  return CuResult::kSuccess;
}

CuResult FakeDevice::StreamDestroy(StreamHandle) { return Call(DriverCall::kStreamDestroy); }

CuResult FakeDevice::StreamSynchronize(StreamHandle) {
  if (CuResult r = Call(DriverCall::kStreamSynchronize, false, false); r != CuResult::kSuccess)
    return r;
  Drain();
  return sticky_;
}

CuResult FakeDevice::StreamQuery(StreamHandle) {
  if (CuResult r = Call(DriverCall::kStreamQuery, false, false); r != CuResult::kSuccess) return r;
  Drain();
  return sticky_;
}

CuResult FakeDevice::StreamAddCallback(StreamHandle, StreamCallbackFn fn, void* user_data) {
  if (CuResult r = Call(DriverCall::kStreamAddCallback, /*allowed_in_callback=*/true);
      r != CuResult::kSuccess) {
    return r;  // refused on a poisoned context, never runs (SEM-06)
  }
  Op op{Op::Kind::kCallback};
  op.callback = fn;
  op.user_data = user_data;
  queue_.push_back(op);
  return CuResult::kSuccess;
}

CuResult FakeDevice::LaunchHostFunc(StreamHandle, HostFn, void*) {
  // No policy uses host functions; refuse rather than model them half.
  Call(DriverCall::kLaunchHostFunc, true);
  return CuResult::kNotSupported;
}

CuResult FakeDevice::EventCreate(EventHandle* event) {
  if (CuResult r = Call(DriverCall::kEventCreate); r != CuResult::kSuccess) return r;
  *event = EventHandle{next_event_++};
  return CuResult::kSuccess;
}

CuResult FakeDevice::EventDestroy(EventHandle) { return Call(DriverCall::kEventDestroy); }

CuResult FakeDevice::EventRecord(EventHandle event, StreamHandle) {
  if (CuResult r = Call(DriverCall::kEventRecord); r != CuResult::kSuccess) return r;
  Op op{Op::Kind::kEvent};
  op.event = static_cast<std::uint32_t>(event);
  queue_.push_back(op);
  return CuResult::kSuccess;
}

CuResult FakeDevice::EventQuery(EventHandle) {
  if (CuResult r = Call(DriverCall::kEventQuery, false, false); r != CuResult::kSuccess) return r;
  Drain();
  return sticky_;
}

CuResult FakeDevice::EventSynchronize(EventHandle) {
  if (CuResult r = Call(DriverCall::kEventSynchronize, false, false); r != CuResult::kSuccess)
    return r;
  Drain();
  return sticky_;
}

CuResult FakeDevice::StreamWaitEvent(StreamHandle, EventHandle) {
  return Call(DriverCall::kStreamWaitEvent);
}

CuResult FakeDevice::HostWordAlloc(HostWordHandle* word) {
  if (CuResult r = Call(DriverCall::kMemHostAlloc); r != CuResult::kSuccess) return r;
  host_words_.push_back(0);
  *word = static_cast<HostWordHandle>(host_words_.size());
  return CuResult::kSuccess;
}

CuResult FakeDevice::HostWordFree(HostWordHandle) { return Call(DriverCall::kMemFreeHost); }

CuResult FakeDevice::StreamWriteValue32(StreamHandle, HostWordHandle word, std::uint32_t value) {
  if (CuResult r = Call(DriverCall::kStreamWriteValue32); r != CuResult::kSuccess) return r;
  const auto w = static_cast<std::uint32_t>(word);
  if (w == 0 || w > host_words_.size()) return CuResult::kInvalidValue;
  Op op{Op::Kind::kWriteValue};
  op.event = w;
  op.value = value;
  queue_.push_back(op);
  return CuResult::kSuccess;
}

std::uint32_t FakeDevice::HostWordLoad(HostWordHandle word) {
  const auto w = static_cast<std::uint32_t>(word);
  return w == 0 || w > host_words_.size() ? 0 : host_words_[w - 1];
}

std::uint64_t FakeDevice::live_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [ptr, bytes] : allocations_) total += bytes;
  return total;
}

std::uint32_t FakeDevice::calls(DriverCall call) const {
  return calls_[static_cast<std::size_t>(call)];
}

bool RecordingObserver::Probed(absl::string_view probe) const {
  return std::find(probes.begin(), probes.end(), probe) != probes.end();
}

}  // namespace stackcheck::testing
