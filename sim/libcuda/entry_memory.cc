// The entry points of device memory: allocation, copies, address ranges.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "absl/strings/str_format.h"
#include "sim/libcuda/driver_state.h"
#include "sim/program/exec_options.h"
#include "sim/sim_device.h"

namespace stackcheck::libcuda {

STACKCHECK_CUDA_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (ptr == nullptr) return Code(CuResult::kInvalidValue);
  // The fault plan counts the program's calls (a module load's allocations
  // for its variables are the driver's own, and a GPU's fail no such way).
  static std::uint32_t calls = 0;
  const std::vector<std::uint32_t>& ooms = stackcheck::program::Faults().oom_at_allocs;
  const bool fails = std::binary_search(ooms.begin(), ooms.end(), ++calls);
  DevicePtr p = 0;
  const CuResult r = RunOnDevice([&](Device& d) {
    if (fails) {
      if (auto* sim = dynamic_cast<stackcheck::sim::SimDevice*>(&d)) sim->FailNextAllocation();
    }
    return AllocateBlock(d, &p, bytes);
  });
  LogDriverCall(Symbol(DriverCall::kMemAlloc),
                absl::StrFormat("(%u bytes) -> %s, 0x%x%s", bytes, Name(r), p,
                                fails ? " [fault plan: out of memory]" : ""));
  if (r == CuResult::kSuccess) *ptr = p;
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.MemFree(ptr); });
  LogDriverCall(Symbol(DriverCall::kMemFree), absl::StrFormat("(0x%x) -> %s", ptr, Name(r)));
  if (r == CuResult::kSuccess) DropBlock(ptr);
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  stackcheck::MemInfo info;
  const CuResult r = RunOnDevice([&](Device& d) { return d.MemGetInfo(&info); });
  if (r == CuResult::kSuccess) {
    if (free_bytes) *free_bytes = info.free_bytes;
    if (total_bytes) *total_bytes = info.total_bytes;
  }
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, std::size_t* size,
                                                        CUdeviceptr ptr) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  // The sticky error first (SEM-05): on an H100 the query returns 719 after a
  // trap, for a live block and for none alike, and sets neither output.
  const CuResult sticky = RunOnDevice([](Device& d) {
    auto* sim = dynamic_cast<stackcheck::sim::SimDevice*>(&d);
    return sim ? sim->sticky() : CuResult::kSuccess;
  });
  if (sticky != CuResult::kSuccess) {
    LogDriverCall("cuMemGetAddressRange_v2", absl::StrFormat("(0x%x) -> %s", ptr, Name(sticky)));
    return Code(sticky);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  DevicePtr b = 0;
  Shadow* block = FindBlock(ptr, 0, &b);
  if (block == nullptr) return Code(CuResult::kNotFound);
  if (base) *base = b;
  if (size) *size = block->bytes;
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src,
                                                std::size_t bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.MemcpyHtoD(dst, src, bytes); });
  if (r == CuResult::kSuccess) {
    std::lock_guard<std::mutex> lock(g_mu);
    DevicePtr base = 0;
    if (Shadow* block = FindBlock(dst, bytes, &base)) {
      std::memcpy(block->data + (dst - base), src, bytes);
    }
  }
  LogDriverCall(Symbol(DriverCall::kMemcpyHtoD),
                absl::StrFormat("(0x%x, %u bytes) -> %s", dst, bytes, Name(r)));
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.MemcpyDtoH(dst, src, bytes); });
  if (r == CuResult::kSuccess) {
    std::lock_guard<std::mutex> lock(g_mu);
    DevicePtr base = 0;
    if (Shadow* block = FindBlock(src, bytes, &base)) {
      std::memcpy(dst, block->data + (src - base), bytes);
    }
  }
  LogDriverCall(Symbol(DriverCall::kMemcpyDtoH),
                absl::StrFormat("(0x%x, %u bytes) -> %s", src, bytes, Name(r)));
  return Code(r);
}

// Page-locked host memory is host memory; the simulator has no use for it.
STACKCHECK_CUDA_EXPORT CUresult cuMemAllocHost_v2(void** ptr, std::size_t bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (ptr == nullptr) return Code(CuResult::kInvalidValue);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  *ptr = std::malloc(bytes == 0 ? 1 : bytes);
  LogDriverCall("cuMemAllocHost_v2", absl::StrFormat("(%u bytes) -> 0", bytes));
  return *ptr ? 0 : Code(CuResult::kOutOfMemory);
}

STACKCHECK_CUDA_EXPORT CUresult cuMemFreeHost(void* ptr) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  std::free(ptr);
  LogDriverCall("cuMemFreeHost", " -> 0");
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr*, void*, unsigned int) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return NotImplemented("cuMemHostGetDevicePointer_v2");
}
STACKCHECK_CUDA_EXPORT CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, std::size_t) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return NotImplemented("cuMemcpy");
}
// The asynchronous copies on the legacy stream, as GOMP_OFFLOAD_dev2dev
// makes them (cuMemcpyDtoDAsync, stream NULL): done as synchronous copies,
// which order after every earlier command as the legacy stream does, and
// before every later one; the host waits where the driver would not. Other
// streams are not modelled for copies.
namespace {

bool LegacyStream(CUstream stream) { return ToSim(stream) == stackcheck::kLegacyStream; }

}  // namespace

STACKCHECK_CUDA_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                                     std::size_t bytes, CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (!LegacyStream(stream)) return NotImplemented("cuMemcpyDtoDAsync_v2 on a created stream");
  std::vector<unsigned char> staging(bytes);
  CUresult r = cuMemcpyDtoH_v2(staging.data(), src, bytes);
  if (r == 0) r = cuMemcpyHtoD_v2(dst, staging.data(), bytes);
  LogDriverCall(
      "cuMemcpyDtoDAsync_v2",
      absl::StrFormat("(0x%x <- 0x%x, %u bytes, legacy stream) -> %d", dst, src, bytes, r));
  return r;
}
STACKCHECK_CUDA_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, std::size_t bytes,
                                                     CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (!LegacyStream(stream)) return NotImplemented("cuMemcpyDtoHAsync_v2 on a created stream");
  return cuMemcpyDtoH_v2(dst, src, bytes);
}
STACKCHECK_CUDA_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src,
                                                     std::size_t bytes, CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (!LegacyStream(stream)) return NotImplemented("cuMemcpyHtoDAsync_v2 on a created stream");
  return cuMemcpyHtoD_v2(dst, src, bytes);
}

}  // namespace stackcheck::libcuda
