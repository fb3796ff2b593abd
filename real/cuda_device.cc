#include "real/cuda_device.h"

#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "real/kernels/embedded_kernels.h"

namespace stackcheck::real {
namespace {

// The context last made current on this thread by any CudaDevice; saves a
// cuCtxSetCurrent per call.
thread_local CUcontext current_on_thread = nullptr;

// Where the completion counter sits in the warps_checked_ allocation: low
// half, blocks of the running kernel done; high half, warps checked by
// kernels that carry a completion word (stackcheck_kernels.cu).
constexpr CUdeviceptr kCompletionCounterOffset = sizeof(std::uint64_t);

}  // namespace

absl::StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::Create(int ordinal) {
  absl::StatusOr<const CudaEntryPoints*> api = LoadDriver();
  if (!api.ok()) return api.status();
  return std::unique_ptr<CudaDevice>(new CudaDevice(**api, ordinal));
}

CudaDevice::CudaDevice(const CudaEntryPoints& api, int ordinal) : api_(api), ordinal_(ordinal) {}

CudaDevice::~CudaDevice() = default;

void CudaDevice::Enter(absl::string_view call) {
  if (InCallbackContext()) {
    absl::MutexLock lock(&mu_);
    if (ledger_.calls_from_callback++ == 0) {
      ledger_.first_call_from_callback = std::string(call);
    }
    return;
  }
  CUcontext ctx = context_.load(std::memory_order_acquire);
  if (ctx != nullptr && current_on_thread != ctx) {
    if (api_.cuCtxSetCurrent(ctx) == CUDA_SUCCESS) current_on_thread = ctx;
  }
}

bool CudaDevice::LookupStream(StreamHandle h, CUstream* out) const {
  if (h == kLegacyStream) {
    *out = nullptr;  // CU_STREAM_LEGACY's handle value in the driver API
    return true;
  }
  absl::MutexLock lock(&mu_);
  return streams_.Find(h, out);
}

bool CudaDevice::LookupEvent(EventHandle h, CUevent* out) const {
  absl::MutexLock lock(&mu_);
  return events_.Find(h, out);
}

std::uint32_t* CudaDevice::LookupHostWord(HostWordHandle h) const {
  absl::MutexLock lock(&mu_);
  std::uint32_t* word = nullptr;
  return host_words_.Find(h, &word) ? word : nullptr;
}

// --- context ---

CuResult CudaDevice::Init() {
  Enter(DriverCall::kInit);
  CUresult r = api_.cuInit(0);
  if (r != CUDA_SUCCESS) return R(r);
  return R(api_.cuDeviceGet(&cu_device_, ordinal_));
}

CuResult CudaDevice::CtxCreate() {
  Enter(DriverCall::kCtxCreate);
  CUcontext ctx = nullptr;
  CUresult r = api_.cuDevicePrimaryCtxRetain(&ctx, cu_device_);
  if (r != CUDA_SUCCESS) return R(r);
  if ((r = api_.cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) return R(r);
  current_on_thread = ctx;
  context_.store(ctx, std::memory_order_release);
  // The kernels' report lives in pinned host memory mapped into the device,
  // so it is not device memory (cuMemGetInfo does not see it) and it stays
  // readable from the host after a sticky error.
  void* host = nullptr;
  r = api_.cuMemHostAlloc(&host, kReportSlots * sizeof(std::uint64_t),
                          CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
  if (r != CUDA_SUCCESS) return R(r);
  report_host_ = static_cast<std::uint64_t*>(host);
  std::memset(report_host_, 0, kReportSlots * sizeof(std::uint64_t));
  r = api_.cuMemHostGetDevicePointer(&report_device_, host, 0);
  if (r != CUDA_SUCCESS) return R(r);
  // Before any measurement of free memory the testbed takes, so it is part of
  // the baseline; deliberately outside the ledger.
  // Its second 8 bytes hold the kernels' completion counter (EXT-02).
  if ((r = api_.cuMemAlloc(&warps_checked_, 2 * sizeof(std::uint64_t))) != CUDA_SUCCESS) {
    return R(r);
  }
  const std::uint64_t zero[2] = {0, 0};
  return R(api_.cuMemcpyHtoD(warps_checked_, zero, sizeof(zero)));
}

CuResult CudaDevice::CtxDestroy() {
  Enter(DriverCall::kCtxDestroy);
  CUcontext ctx = context_.load(std::memory_order_acquire);
  if (ctx == nullptr) return CuResult::kInvalidContext;
  // SEM-15: teardown drains first. A sticky error is reported but does not
  // stop the teardown.
  const CUresult drained = api_.cuCtxSynchronize();
  std::size_t free_bytes = 0, total_bytes = 0;
  const bool free_known = api_.cuMemGetInfo(&free_bytes, &total_bytes) == CUDA_SUCCESS;
  {
    absl::MutexLock lock(&mu_);
    ++ledger_.destroys;
    ledger_.free_at_destroy_known = free_known;
    ledger_.free_at_destroy = free_bytes;
    ledger_.leaked_blocks_at_destroy = live_.size();
    ledger_.leaked_bytes_at_destroy = ledger_.live_bytes;
    live_.clear();
    ledger_.live_blocks = 0;
    ledger_.live_bytes = 0;
    streams_.Clear();
    events_.Clear();
    modules_.Clear();
    functions_.Clear();
    // Pinned host memory is the context's too: freed here (on a poisoned
    // context the calls fail and the release reclaims it).
    host_words_.ForEachLive([this](std::uint32_t* word) { api_.cuMemFreeHost(word); });
    host_words_.Clear();
  }
  // The report dies with the context: keep its last contents for the
  // testbed.
  report_at_destroy_ = ReadKernelReport();
  // On a poisoned context these fail and the release reclaims them.
  if (report_host_ != nullptr) api_.cuMemFreeHost(report_host_);
  if (warps_checked_ != 0) api_.cuMemFree(warps_checked_);
  report_host_ = nullptr;
  report_device_ = 0;
  warps_checked_ = 0;
  context_.store(nullptr, std::memory_order_release);
  current_on_thread = nullptr;
  const CUresult released = api_.cuDevicePrimaryCtxRelease(cu_device_);
  return R(drained != CUDA_SUCCESS ? drained : released);
}

CuResult CudaDevice::CtxSynchronize() {
  Enter(DriverCall::kCtxSynchronize);
  return R(api_.cuCtxSynchronize());
}

// --- memory ---

CuResult CudaDevice::MemAlloc(DevicePtr* ptr, std::uint64_t bytes) {
  Enter(DriverCall::kMemAlloc);
  CUdeviceptr p = 0;
  const CUresult r = api_.cuMemAlloc(&p, bytes);
  if (r == CUDA_SUCCESS) {
    *ptr = p;
    absl::MutexLock lock(&mu_);
    live_[p] = bytes;
    ++ledger_.allocs;
    ++ledger_.live_blocks;
    ledger_.live_bytes += bytes;
    if (ledger_.live_bytes > ledger_.peak_bytes) {
      ledger_.peak_bytes = ledger_.live_bytes;
    }
  }
  return R(r);
}

CuResult CudaDevice::MemFree(DevicePtr ptr) {
  Enter(DriverCall::kMemFree);
  const CUresult r = api_.cuMemFree(ptr);
  absl::MutexLock lock(&mu_);
  if (r != CUDA_SUCCESS) {
    ++ledger_.failed_frees;
    return R(r);
  }
  if (ptr == 0) return R(r);
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    ++ledger_.unknown_frees;
    return R(r);
  }
  ++ledger_.frees;
  --ledger_.live_blocks;
  ledger_.live_bytes -= it->second;
  live_.erase(it);
  return R(r);
}

CuResult CudaDevice::MemcpyHtoD(DevicePtr dst, const void* src, std::uint64_t bytes) {
  Enter(DriverCall::kMemcpyHtoD);
  return R(api_.cuMemcpyHtoD(dst, src, bytes));
}

CuResult CudaDevice::MemcpyDtoH(void* dst, DevicePtr src, std::uint64_t bytes) {
  Enter(DriverCall::kMemcpyDtoH);
  return R(api_.cuMemcpyDtoH(dst, src, bytes));
}

CuResult CudaDevice::MemGetInfo(MemInfo* info) {
  Enter(DriverCall::kMemGetInfo);
  std::size_t free_bytes = 0, total_bytes = 0;
  const CUresult r = api_.cuMemGetInfo(&free_bytes, &total_bytes);
  if (r == CUDA_SUCCESS) {
    info->free_bytes = free_bytes;
    info->total_bytes = total_bytes;
  }
  return R(r);
}

CuResult CudaDevice::MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes, StreamHandle stream) {
  Enter(DriverCall::kMemAllocAsync);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  CUdeviceptr p = 0;
  const CUresult r = api_.cuMemAllocAsync(&p, bytes, s);
  if (r == CUDA_SUCCESS) {
    *ptr = p;
    absl::MutexLock lock(&mu_);
    live_[p] = bytes;
    ++ledger_.allocs;
    ++ledger_.live_blocks;
    ledger_.live_bytes += bytes;
    if (ledger_.live_bytes > ledger_.peak_bytes) {
      ledger_.peak_bytes = ledger_.live_bytes;
    }
  }
  return R(r);
}

CuResult CudaDevice::MemFreeAsync(DevicePtr ptr, StreamHandle stream) {
  Enter(DriverCall::kMemFreeAsync);
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  const CUresult r = api_.cuMemFreeAsync(ptr, s);
  absl::MutexLock lock(&mu_);
  if (r != CUDA_SUCCESS) {
    ++ledger_.failed_frees;
    return R(r);
  }
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    ++ledger_.unknown_frees;
    return R(r);
  }
  ++ledger_.frees;
  --ledger_.live_blocks;
  ledger_.live_bytes -= it->second;
  live_.erase(it);
  return R(r);
}

// --- modules and kernels ---

CuResult CudaDevice::ModuleLoad(ModuleHandle* module, absl::string_view image) {
  Enter(DriverCall::kModuleLoad);
  absl::optional<const char*> ptx = EmbeddedPtx(image);
  if (!ptx.has_value()) return CuResult::kNotFound;
  CUmodule m = nullptr;
  const CUresult r = api_.cuModuleLoadData(&m, *ptx);
  if (r != CUDA_SUCCESS) return R(r);
  absl::MutexLock lock(&mu_);
  *module = modules_.Add(m);
  return CuResult::kSuccess;
}

CuResult CudaDevice::ModuleUnload(ModuleHandle module) {
  Enter(DriverCall::kModuleUnload);
  CUmodule m = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!modules_.Take(module, &m)) return CuResult::kInvalidHandle;
  }
  return R(api_.cuModuleUnload(m));
}

CuResult CudaDevice::ModuleGetFunction(FunctionHandle* function, ModuleHandle module,
                                       absl::string_view name) {
  Enter(DriverCall::kModuleGetFunction);
  CUmodule m = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!modules_.Find(module, &m)) return CuResult::kInvalidHandle;
  }
  CUfunction f = nullptr;
  const std::string name_z(name);
  const CUresult r = api_.cuModuleGetFunction(&f, m, name_z.c_str());
  if (r != CUDA_SUCCESS) return R(r);
  absl::MutexLock lock(&mu_);
  *function = functions_.Add(f);
  return CuResult::kSuccess;
}

CuResult CudaDevice::LaunchKernel(FunctionHandle function, Dim3 grid, Dim3 block,
                                  const KernelArgs& args, StreamHandle stream) {
  Enter(DriverCall::kLaunchKernel);
  CUfunction f = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!functions_.Find(function, &f)) return CuResult::kInvalidHandle;
  }
  CUstream s;
  if (!LookupStream(stream, &s)) return CuResult::kInvalidHandle;
  // The kernels' parameter list (stackcheck_kernels.cu): the driver copies
  // the values at the call (SEM-03), so locals are fine.
  unsigned long long stacks = args.stacks;
  unsigned long long size = args.stack_size_per_warp;
  unsigned int tag = args.region_tag;
  unsigned long long duration = args.duration_ns;
  unsigned int action = static_cast<unsigned int>(args.action);
  unsigned long long* report = reinterpret_cast<unsigned long long*>(report_device_);
  unsigned long long* checked = reinterpret_cast<unsigned long long*>(warps_checked_);
  unsigned int* completion = nullptr;
  if (args.completion_word != HostWordHandle{}) {
    completion = LookupHostWord(args.completion_word);
    if (completion == nullptr) return CuResult::kInvalidValue;
  }
  unsigned int completion_value = args.completion_value;
  unsigned long long* completion_counter =
      reinterpret_cast<unsigned long long*>(warps_checked_ + kCompletionCounterOffset);
  void* params[] = {&stacks, &size,    &tag,        &duration,         &action,
                    &report, &checked, &completion, &completion_value, &completion_counter};
  return R(api_.cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                               /*sharedMemBytes=*/0, s, params,
                               /*extra=*/nullptr));
}

// --- testbed extras ---

DeviceLedger CudaDevice::Ledger() const {
  absl::MutexLock lock(&mu_);
  return ledger_;
}

KernelReport CudaDevice::ReadKernelReport(bool device_counter) {
  if (report_host_ == nullptr) return report_at_destroy_;
  KernelReport out;
  volatile std::uint64_t* r = report_host_;
  out.corruptions = r[kReportCorruptions];
  out.expected = r[kReportExpected];
  out.observed = r[kReportObserved];
  if (device_counter && !InCallbackContext()) {
    Enter(DriverCall::kMemcpyDtoH);
    std::uint64_t counters[2] = {0, 0};
    out.warps_checked_known =
        api_.cuMemcpyDtoH(counters, warps_checked_, sizeof(counters)) == CUDA_SUCCESS;
    // Kernels with a completion word count their warps in the high half of
    // the completion counter (32 bits: it wraps after 4 G warps).
    out.warps_checked = counters[0] + (counters[1] >> 32);
  }
  return out;
}

void CudaDevice::ResetKernelReport() {
  report_at_destroy_ = KernelReport();
  if (report_host_ == nullptr) return;
  volatile std::uint64_t* r = report_host_;
  for (int i = 0; i < kReportSlots; ++i) r[i] = 0;
  Enter(DriverCall::kMemcpyHtoD);
  const std::uint64_t zero = 0;
  api_.cuMemcpyHtoD(warps_checked_, &zero, sizeof(zero));
}

absl::StatusOr<DeviceProperties> CudaDevice::Properties() {
  Enter("cuDeviceGetAttribute");
  DeviceProperties p;
  p.ordinal = ordinal_;
  p.driver_version = api_.driver_version;
  char name[256] = {};
  CUresult r = api_.cuDeviceGetName(name, sizeof(name) - 1, cu_device_);
  if (r == CUDA_SUCCESS) {
    r = api_.cuDeviceGetAttribute(&p.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                  cu_device_);
  }
  if (r == CUDA_SUCCESS) {
    r = api_.cuDeviceGetAttribute(&p.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  cu_device_);
  }
  if (r == CUDA_SUCCESS) {
    r = api_.cuDeviceGetAttribute(&p.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  cu_device_);
  }
  if (r != CUDA_SUCCESS) {
    return absl::InternalError(absl::StrCat("device properties: ", DriverErrorName(r)));
  }
  p.name = name;
  return p;
}

absl::StatusOr<int> CudaDevice::MaxActiveBlocksPerSm(FunctionHandle function, int warps) {
  Enter("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  CUfunction f = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!functions_.Find(function, &f)) {
      return absl::InvalidArgumentError("unknown function handle");
    }
  }
  int blocks = 0;
  const CUresult r = api_.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 32 * warps, 0);
  if (r != CUDA_SUCCESS) {
    return absl::InternalError(absl::StrCat("occupancy: ", DriverErrorName(r)));
  }
  return blocks;
}

}  // namespace stackcheck::real
