// The entry points of initialisation, the device and its context, and
// cuGetProcAddress.

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim/libcuda/driver_state.h"
#include "sim/sim_device.h"

namespace stackcheck::libcuda {

struct CtxOpaque {};

namespace {

// The current context of each host thread: a stack, as the driver keeps it.
// There is one context (the SimDevice's); its handle is this address.
CtxOpaque g_context;
bool g_context_live = false;
// Nothing in it has a destructor: libgomp's exit handler (the plugin's
// GOMP_OFFLOAD_fini_device) asks for the current context after exit() has
// destroyed the main thread's thread_local objects.
struct ContextStack {
  static constexpr int kMaxDepth = 64;  // the real driver's depth is not documented
  bool empty() const { return depth == 0; }
  bool full() const { return depth == kMaxDepth; }
  CUcontext back() const { return entries[depth - 1]; }
  void push_back(CUcontext c) { entries[depth++] = c; }
  void pop_back() { --depth; }

  CUcontext entries[kMaxDepth];
  int depth;
};
thread_local ContextStack t_ctx_stack;  // zero-initialised: empty

int DeviceAttribute(int attribute, bool* known) {
  *known = true;
  // An H200-class device (SM 9.0, 132 multiprocessors): the plugin reads
  // these to choose launch geometry.
  switch (attribute) {
    case 1:
      return 1024;  // MAX_THREADS_PER_BLOCK
    case 2:
      return 1024;  // MAX_BLOCK_DIM_X
    case 3:
      return 1024;  // MAX_BLOCK_DIM_Y
    case 4:
      return 64;  // MAX_BLOCK_DIM_Z
    case 5:
      return 2147483647;  // MAX_GRID_DIM_X
    case 6:
      return 65535;  // MAX_GRID_DIM_Y
    case 7:
      return 65535;  // MAX_GRID_DIM_Z
    case 8:
      return 49152;  // MAX_SHARED_MEMORY_PER_BLOCK
    case 9:
      return 65536;  // TOTAL_CONSTANT_MEMORY
    case 10:
      return 32;  // WARP_SIZE
    case 12:
      return 65536;  // MAX_REGISTERS_PER_BLOCK
    case 13:
      return 1980000;  // CLOCK_RATE (kHz)
    case 15:
      return 1;  // GPU_OVERLAP
    case 16:
      return 132;  // MULTIPROCESSOR_COUNT
    case 18:
      return 0;  // INTEGRATED
    case 19:
      return 1;  // CAN_MAP_HOST_MEMORY
    case 20:
      return 0;  // COMPUTE_MODE (default)
    case 31:
      return 1;  // CONCURRENT_KERNELS
    case 39:
      return 2048;  // MAX_THREADS_PER_MULTIPROCESSOR
    case 40:
      return 3;  // ASYNC_ENGINE_COUNT
    case 41:
      return 1;  // UNIFIED_ADDRESSING
    case 75:
      return 9;  // COMPUTE_CAPABILITY_MAJOR
    case 76:
      return 0;  // COMPUTE_CAPABILITY_MINOR
    case 81:
      return 233472;  // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    case 82:
      return 65536;  // MAX_REGISTERS_PER_MULTIPROCESSOR
    case 83:
      return 1;  // MANAGED_MEMORY
    case 97:
      return 232448;  // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    default:
      *known = false;
      return 0;
  }
}

}  // namespace

CUcontext CurrentContext() { return t_ctx_stack.empty() ? nullptr : t_ctx_stack.back(); }

STACKCHECK_CUDA_EXPORT CUresult cuInit(unsigned int flags) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([](Device& d) { return d.Init(); });
  LogDriverCall(Symbol(DriverCall::kInit), absl::StrCat("(", flags, ") -> ", Name(r)));
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuDriverGetVersion(int* version) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (version == nullptr) return Code(CuResult::kInvalidValue);
  *version = 13000;
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuDeviceGetCount(int* count) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (count == nullptr) return Code(CuResult::kInvalidValue);
  *count = 1;
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (device == nullptr) return Code(CuResult::kInvalidValue);
  if (ordinal != 0) return Code(CuResult::kInvalidDevice);
  *device = 0;
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (name == nullptr || len <= 0) return Code(CuResult::kInvalidValue);
  if (device != 0) return Code(CuResult::kInvalidDevice);
  std::snprintf(name, static_cast<std::size_t>(len), "stackcheck simulated GPU");
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (bytes == nullptr) return Code(CuResult::kInvalidValue);
  if (device != 0) return Code(CuResult::kInvalidDevice);
  *bytes = stackcheck::libcuda::DeviceCapacity();
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (value == nullptr) return Code(CuResult::kInvalidValue);
  if (device != 0) return Code(CuResult::kInvalidDevice);
  bool known = false;
  *value = DeviceAttribute(attribute, &known);
  if (!known) {
    LogDriverCall("cuDeviceGetAttribute", absl::StrCat("(", attribute, ") -> 0 (not modelled)"));
  }
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxCreate_v2(CUcontext* context, unsigned int flags,
                                               CUdevice device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (context == nullptr) return Code(CuResult::kInvalidValue);
  if (device != 0) return Code(CuResult::kInvalidDevice);
  const CuResult r = RunOnDevice([](Device& d) { return d.CtxCreate(); });
  LogDriverCall(Symbol(DriverCall::kCtxCreate), absl::StrCat("(flags=", flags, ") -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  g_context_live = true;
  *context = &g_context;
  if (!t_ctx_stack.full()) t_ctx_stack.push_back(&g_context);
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxDestroy_v2(CUcontext context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (context != &g_context || !g_context_live) return Code(CuResult::kInvalidContext);
  const CuResult r = RunOnDevice([](Device& d) { return d.CtxDestroy(); });
  LogDriverCall(Symbol(DriverCall::kCtxDestroy), absl::StrCat(" -> ", Name(r)));
  if (r == CuResult::kSuccess) {
    g_context_live = false;
    DropAllBlocks();
    // The destroyed context is no longer current on this thread.
    while (!t_ctx_stack.empty() && t_ctx_stack.back() == &g_context) t_ctx_stack.pop_back();
  }
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxGetCurrent(CUcontext* context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (context == nullptr) return Code(CuResult::kInvalidValue);
  *context = CurrentContext();
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (device == nullptr) return Code(CuResult::kInvalidValue);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  *device = 0;
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (context != &g_context || !g_context_live) return Code(CuResult::kInvalidContext);
  if (t_ctx_stack.full()) return Code(CuResult::kOutOfMemory);
  t_ctx_stack.push_back(context);
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext* context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (t_ctx_stack.empty()) return Code(CuResult::kInvalidContext);
  if (context != nullptr) *context = t_ctx_stack.back();
  t_ctx_stack.pop_back();
  return 0;
}

STACKCHECK_CUDA_EXPORT CUresult cuCtxSynchronize() {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([](Device& d) { return d.CtxSynchronize(); });
  LogDriverCall(Symbol(DriverCall::kCtxSynchronize), absl::StrCat(" -> ", Name(r)));
  return Code(r);
}

STACKCHECK_CUDA_EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
  if (text == nullptr) return Code(CuResult::kInvalidValue);
  static std::mutex mu;
  static auto* texts = new std::map<int, std::string>;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = texts->try_emplace(error);
  if (fresh) {
    it->second = std::string(stackcheck::CuResultDescription(static_cast<CuResult>(error)));
  }
  *text = it->second.c_str();
  return 0;
}

namespace {

// Versioned names first: a caller asking for "cuMemAlloc" gets the newest
// version this library has.
void* FindProc(const char* symbol) {
  if (symbol == nullptr) return nullptr;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&cuInit), &info) == 0) return nullptr;
  void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (self == nullptr) return nullptr;
  void* fn = dlsym(self, absl::StrCat(symbol, "_v2").c_str());
  if (fn == nullptr) fn = dlsym(self, symbol);
  dlclose(self);
  return fn;
}

}  // namespace

STACKCHECK_CUDA_EXPORT CUresult cuGetProcAddress(const char* symbol, void** fn, int,
                                                 std::uint64_t) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (symbol == nullptr || fn == nullptr) return Code(CuResult::kInvalidValue);
  *fn = FindProc(symbol);
  return *fn ? 0 : Code(CuResult::kNotFound);
}

STACKCHECK_CUDA_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int,
                                                    std::uint64_t, int* status) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (symbol == nullptr || fn == nullptr) return Code(CuResult::kInvalidValue);
  *fn = FindProc(symbol);
  // CU_GET_PROC_ADDRESS_SUCCESS = 0, _SYMBOL_NOT_FOUND = 1.
  if (status) *status = *fn ? 0 : 1;
  return *fn ? 0 : Code(CuResult::kNotFound);
}

// The simulated process ends with the real one: after the program's exit
// handlers (libgomp's device finalisation among them) have run.
__attribute__((destructor)) static void EndSimulation() { stackcheck::libcuda::FinishSimulation(); }

}  // namespace stackcheck::libcuda
