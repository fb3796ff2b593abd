// libcuda.so.1 backed by the simulator: every entry point GCC's libgomp nvptx
// plugin resolves (entry_points.tsv), plus cuGetProcAddress. Types are
// declared here with the driver ABI's sizes (handles are pointers, CUresult
// and CUdevice are int, CUdeviceptr is 64 bits) instead of including cuda.h,
// whose macros rename the unversioned functions.
//
// Rules:
// - Calls that touch device state go through RunOnDevice to the SimDevice, so
//   its admission order (sticky error first, SEM-05; no calls from callback
//   context, SEM-09), waits (SEM-11, SEM-14) and event log apply.
// - Device memory holds real bytes at its device addresses: every live block
//   is mapped at the address the SimDevice gave it (zero-filled pages, backed
//   lazily by the kernel), so a kernel's code dereferences device pointers
//   (kernel_body.h). cuMemcpy* read and write the bytes after the SimDevice
//   accepted the copy. A `declare target` variable has its block, paired
//   with its host variable (offload_images.h): while a kernel's code runs,
//   the host variable holds the device variable's bytes.
// - Modules are PTX. cuLinkComplete returns an image holding the PTX it was
//   given; cuModuleLoadData takes that image or PTX text. Every `.entry` of a
//   module is a function; every `.global` gets device memory of its size.
// - A kernel is enqueued as the simulator's OpenMP-shaped kernel with
//   libgomp's arguments as GOMP_OFFLOAD_run passes them: (variable table or
//   NULL, stacks block, per-warp stack size). When the GPU actor starts it,
//   its region's host function runs on the device memory (kernel_body.h);
//   it completes when the GPU actor runs its end, at the latest at the next
//   synchronisation.
// - An entry point that is not implemented prints one line naming itself and
//   returns CUDA_ERROR_NOT_SUPPORTED.
#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "core/cu_result.h"
#include "core/device.h"
#include "core/driver_call.h"
#include "sim/libcuda/bridge.h"
#include "sim/libcuda/ptx_symbols.h"
#include "sim/program/callback_call.h"
#include "sim/program/entry_point.h"
#include "sim/program/exec_options.h"
#include "sim/program/kernel_body.h"
#include "sim/program/offload_images.h"
#include "sim/program/openmp_calls.h"
#include "sim/program/plugin_calls.h"
#include "sim/program/program_threads.h"
#include "sim/sim_device.h"

namespace {

using stackcheck::CuResult;
using stackcheck::Device;
using stackcheck::DevicePtr;
using stackcheck::DriverCall;
using stackcheck::libcuda::LogDriverCall;
using stackcheck::libcuda::LogDriverNote;
using stackcheck::libcuda::RunOnDevice;
using stackcheck::program::InForkedChild;

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uint64_t;
using CUcontext = struct CtxOpaque*;
using CUmodule = struct ModuleOpaque*;
using CUfunction = struct FunctionOpaque*;
using CUstream = struct StreamOpaque*;
using CUevent = struct EventOpaque*;
using CUlinkState = struct LinkOpaque*;
using CUstreamCallback = void (*)(CUstream, CUresult, void*);

constexpr int kJitWallTime = 2;
constexpr int kJitInfoLogBuffer = 3;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitInputPtx = 1;
constexpr int kStreamNonBlocking = 1;
constexpr int kFuncMaxThreadsPerBlock = 0;
constexpr int kFuncNumRegs = 4;
// Stream and event handles are small numbers offset past the driver's
// special stream values (CU_STREAM_LEGACY = 1, CU_STREAM_PER_THREAD = 2).
constexpr std::uintptr_t kHandleBase = 0x100;
constexpr char kImageMagic[] = "stackcheck-linked-ptx";

int Code(CuResult r) { return static_cast<int>(r); }

// The export of a call the SimDevice serves, as core's table names it.
absl::string_view Symbol(DriverCall call) { return stackcheck::DriverCallSymbol(call); }

std::string Name(CuResult r) {
  return absl::StrCat(static_cast<int>(r), " ", stackcheck::CuResultName(r));
}

CUresult NotImplemented(const char* name) {
  std::fprintf(stderr,
               "stackcheck libcuda: %s is not implemented by the simulator; "
               "returning CUDA_ERROR_NOT_SUPPORTED\n",
               name);
  LogDriverCall(name, " -> not implemented");
  return Code(CuResult::kNotSupported);
}

// --- state of the driver library beside the SimDevice ------------------------

// A live block's bytes: where they are.
struct Shadow {
  enum class Backing {
    kAtAddress,  // mapped at the block's device address
    kHeap,       // elsewhere (the address was taken): kernels cannot use it
  };
  std::uint64_t bytes = 0;
  unsigned char* data = nullptr;
  Backing backing = Backing::kHeap;
};

struct Function {
  std::string name;
  std::vector<std::uint32_t> param_sizes;
  stackcheck::FunctionHandle sim{};
  stackcheck::program::HostFunction host = nullptr;  // its region's host code
};

struct Module {
  stackcheck::ModuleHandle sim{};
  stackcheck::libcuda::PtxSymbols symbols;
  std::map<std::string, std::pair<DevicePtr, std::uint64_t>> globals;
  std::map<std::string, std::unique_ptr<Function>> functions;
};

// The inputs are read as they are added (the caller may free them after
// the call); the linked image declares what they define (ptx_symbols.h).
struct Link {
  stackcheck::libcuda::PtxSymbols symbols;
  std::size_t inputs = 0;
  std::string image;
};

// The tables are never destroyed: a program's other threads may still call
// the driver while one thread's exit runs the exit handlers, static
// destructors among them (what glibc does, no-concurrent-exit aside).
std::mutex g_mu;  // guards the tables below (not the device: the bridge does)
std::map<DevicePtr, Shadow>& g_blocks = *new std::map<DevicePtr, Shadow>;
// The device variables of loaded modules paired with the program's host
// variables, by the device block.
std::map<DevicePtr, stackcheck::program::HostVariable>& g_paired =
    *new std::map<DevicePtr, stackcheck::program::HostVariable>;

// The current context of each host thread: a stack, as the driver keeps it.
// There is one context (the SimDevice's); its handle is this address.
struct CtxOpaque {};
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

CUcontext CurrentContext() { return t_ctx_stack.empty() ? nullptr : t_ctx_stack.back(); }

// A block holding [ptr, ptr + bytes); nullptr if none.
Shadow* FindBlock(DevicePtr ptr, std::uint64_t bytes, DevicePtr* base = nullptr) {
  auto it = g_blocks.upper_bound(ptr);
  if (it == g_blocks.begin()) return nullptr;
  --it;
  if (ptr - it->first > it->second.bytes || bytes > it->second.bytes - (ptr - it->first)) {
    return nullptr;
  }
  if (bytes == 0 && ptr - it->first == it->second.bytes) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

stackcheck::StreamHandle ToSim(CUstream s) {
  const auto v = reinterpret_cast<std::uintptr_t>(s);
  if (v < kHandleBase) return stackcheck::kLegacyStream;  // NULL, CU_STREAM_LEGACY
  return static_cast<stackcheck::StreamHandle>(v - kHandleBase);
}
CUstream FromSim(stackcheck::StreamHandle s) {
  const auto v = static_cast<std::uintptr_t>(s);
  return v == 0 ? nullptr : reinterpret_cast<CUstream>(v + kHandleBase);
}

constexpr std::uint64_t kPage = 4096;
std::uint64_t PageRounded(std::uint64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

// Memory for a block at its device address. The SimDevice's addresses
// (from FirstDeviceAddress() up, a TiB per actor, 2 MiB granules) lie below where Linux
// places a program, its heap and its libraries, and are never reused within
// an execution. Fresh anonymous pages cost nothing until touched. Where the
// address is taken anyway (or not page-aligned: a granularity under a page),
// the block lives on the heap and a kernel that needs it cannot run.
Shadow MapBlock(DevicePtr ptr, std::uint64_t bytes) {
  if (ptr % kPage == 0) {
    void* want = reinterpret_cast<void*>(ptr);
    void* got = mmap(want, PageRounded(bytes), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == want)
      return Shadow{bytes, static_cast<unsigned char*>(got), Shadow::Backing::kAtAddress};
    if (got != MAP_FAILED) munmap(got, PageRounded(bytes));  // a kernel without NOREPLACE
  }
  // calloc of a large block maps fresh zero pages: no memory until touched.
  return Shadow{bytes, static_cast<unsigned char*>(std::calloc(1, bytes)), Shadow::Backing::kHeap};
}

void Release(Shadow& shadow) {
  switch (shadow.backing) {
    case Shadow::Backing::kAtAddress:
      munmap(shadow.data, PageRounded(shadow.bytes));
      break;
    case Shadow::Backing::kHeap:
      std::free(shadow.data);
      break;
  }
}

CuResult AllocateBlock(Device& d, DevicePtr* ptr, std::uint64_t bytes) {
  const CuResult r = d.MemAlloc(ptr, bytes);
  if (r != CuResult::kSuccess) return r;
  Shadow shadow = MapBlock(*ptr, bytes);
  if (shadow.data == nullptr) {
    d.MemFree(*ptr);
    return CuResult::kOutOfMemory;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_blocks[*ptr] = shadow;
  return r;
}

void DropBlock(DevicePtr ptr) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_blocks.find(ptr);
  if (it == g_blocks.end()) return;
  g_paired.erase(ptr);
  Release(it->second);
  g_blocks.erase(it);
}

void DropAllBlocks() {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& [base, shadow] : g_blocks) Release(shadow);
  g_blocks.clear();
  g_paired.clear();
}

// Whether a kernel's code can run on the block holding `ptr` (0: no block
// needed).
bool AddressableAt(DevicePtr ptr) {
  if (ptr == 0) return true;
  std::lock_guard<std::mutex> lock(g_mu);
  const Shadow* block = FindBlock(ptr, 0);
  return block != nullptr && block->backing != Shadow::Backing::kHeap;
}

struct CallbackCall {
  CUstreamCallback fn;
  void* user_data;
};

STACKCHECK_PROGRAM_CALLBACK_CALLER void CallProgramCallback(const CallbackCall& call,
                                                            CUstream stream, CUresult status) {
  call.fn(stream, status, call.user_data);
  STACKCHECK_AFTER_PROGRAM_CALLBACK();
}

void CallbackTrampoline(stackcheck::StreamHandle stream, CuResult status, void* data) {
  std::unique_ptr<CallbackCall> call(static_cast<CallbackCall*>(data));
  CallProgramCallback(*call, FromSim(stream), Code(status));
}

// The module's variables start with their initialisers, as the driver's
// module load writes them; an address in one is another variable's, and a
// variable paired with a host variable is reached at the host's address,
// where its bytes are while a kernel's code runs (RunWithDeviceVariables).
void InitializeGlobals(const Module& m) {
  auto address_of = [&m](absl::string_view symbol, std::uint64_t* address) {
    auto it = m.globals.find(std::string(symbol));
    if (it == m.globals.end() || it->second.first == 0) return false;
    *address = it->second.first;
    std::lock_guard<std::mutex> lock(g_mu);
    auto paired = g_paired.find(it->second.first);
    if (paired != g_paired.end() && !paired->second.link) {
      *address = reinterpret_cast<std::uint64_t>(paired->second.address);
    }
    return true;
  };
  for (const auto& g : m.symbols.globals) {
    if (g.initializer.empty()) continue;
    std::vector<unsigned char> bytes;
    std::string error;
    if (!stackcheck::libcuda::InitialBytes(g, address_of, &bytes, &error)) {
      LogDriverNote(absl::StrCat("module variable ", g.name, ": initialiser element \"", error,
                                 "\" not understood; the variable starts zero-filled"));
      continue;
    }
    const DevicePtr ptr = m.globals.at(g.name).first;
    std::lock_guard<std::mutex> lock(g_mu);
    if (Shadow* block = FindBlock(ptr, bytes.size())) {
      std::memcpy(block->data, bytes.data(), bytes.size());
    }
  }
}

CUresult LoadModule(CUmodule* out, absl::string_view image, absl::string_view api) {
  auto module = std::make_unique<Module>();
  if (image.size() > sizeof kImageMagic &&
      std::memcmp(image.data(), kImageMagic, sizeof kImageMagic) == 0) {
    image.remove_prefix(sizeof kImageMagic);
  }
  stackcheck::libcuda::ParsePtx(image, &module->symbols);
  Module* m = module.get();
  const CuResult r = RunOnDevice([&](Device& d) {
    CuResult r = d.ModuleLoad(&m->sim, stackcheck::kKernelImage);
    if (r != CuResult::kSuccess) return r;
    for (const auto& g : m->symbols.globals) {
      DevicePtr ptr = 0;
      if (g.bytes != 0) {
        r = AllocateBlock(d, &ptr, g.bytes);
        if (r != CuResult::kSuccess) return r;
      }
      m->globals[g.name] = {ptr, g.bytes};
      // A `declare target` variable of the program's: its block holds the
      // data (or, for a link variable, a pointer to the data). A constant
      // is the same on both sides, and read-only on the host's.
      const auto host = stackcheck::program::HostVariableOf(g.name);
      if (ptr != 0 && host && !g.constant &&
          (host->link ? g.bytes == sizeof(DevicePtr) : host->bytes == g.bytes)) {
        std::lock_guard<std::mutex> lock(g_mu);
        g_paired[ptr] = *host;
      }
    }
    return CuResult::kSuccess;
  });
  if (r == CuResult::kSuccess) InitializeGlobals(*m);
  LogDriverCall(api,
                absl::StrCat("(", image.size(), " bytes of PTX: ", m->symbols.kernels.size(),
                             " .entry, ", m->symbols.globals.size(), " .global) -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  *out = reinterpret_cast<CUmodule>(module.release());
  return 0;
}

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

#define EXPORT extern "C" __attribute__((visibility("default"))) STACKCHECK_ENTRY_POINT
// Every entry point but cuGetErrorString first refuses a process forked from
// a controlled one (program_threads.h, InForkedChild) with
// CUDA_ERROR_NOT_INITIALIZED: the child inherits no usable context. That a
// real driver's calls fail so in such a child is assumed, not yet measured
// (tests/programs/fork_wait.c, region mode, is the GPU check).

// --- initialisation, device, context ----------------------------------------

EXPORT CUresult cuInit(unsigned int flags) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([](Device& d) { return d.Init(); });
  LogDriverCall(Symbol(DriverCall::kInit), absl::StrCat("(", flags, ") -> ", Name(r)));
  return Code(r);
}

EXPORT CUresult cuDriverGetVersion(int* version) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (version == nullptr) return Code(CuResult::kInvalidValue);
  *version = 13000;
  return 0;
}

EXPORT CUresult cuDeviceGetCount(int* count) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (count == nullptr) return Code(CuResult::kInvalidValue);
  *count = 1;
  return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (device == nullptr) return Code(CuResult::kInvalidValue);
  if (ordinal != 0) return Code(CuResult::kInvalidDevice);
  *device = 0;
  return 0;
}

EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (name == nullptr || len <= 0) return Code(CuResult::kInvalidValue);
  if (device != 0) return Code(CuResult::kInvalidDevice);
  std::snprintf(name, static_cast<std::size_t>(len), "stackcheck simulated GPU");
  return 0;
}

EXPORT CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (bytes == nullptr) return Code(CuResult::kInvalidValue);
  if (device != 0) return Code(CuResult::kInvalidDevice);
  *bytes = stackcheck::libcuda::DeviceCapacity();
  return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
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

EXPORT CUresult cuCtxCreate_v2(CUcontext* context, unsigned int flags, CUdevice device) {
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

EXPORT CUresult cuCtxDestroy_v2(CUcontext context) {
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

EXPORT CUresult cuCtxGetCurrent(CUcontext* context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (context == nullptr) return Code(CuResult::kInvalidValue);
  *context = CurrentContext();
  return 0;
}

EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (device == nullptr) return Code(CuResult::kInvalidValue);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  *device = 0;
  return 0;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (context != &g_context || !g_context_live) return Code(CuResult::kInvalidContext);
  if (t_ctx_stack.full()) return Code(CuResult::kOutOfMemory);
  t_ctx_stack.push_back(context);
  return 0;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext* context) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (t_ctx_stack.empty()) return Code(CuResult::kInvalidContext);
  if (context != nullptr) *context = t_ctx_stack.back();
  t_ctx_stack.pop_back();
  return 0;
}

EXPORT CUresult cuCtxSynchronize() {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([](Device& d) { return d.CtxSynchronize(); });
  LogDriverCall(Symbol(DriverCall::kCtxSynchronize), absl::StrCat(" -> ", Name(r)));
  return Code(r);
}

EXPORT CUresult cuGetErrorString(CUresult error, const char** text) {
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

// --- memory -------------------------------------------------------------------

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
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

EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.MemFree(ptr); });
  LogDriverCall(Symbol(DriverCall::kMemFree), absl::StrFormat("(0x%x) -> %s", ptr, Name(r)));
  if (r == CuResult::kSuccess) DropBlock(ptr);
  return Code(r);
}

EXPORT CUresult cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  stackcheck::MemInfo info;
  const CuResult r = RunOnDevice([&](Device& d) { return d.MemGetInfo(&info); });
  if (r == CuResult::kSuccess) {
    if (free_bytes) *free_bytes = info.free_bytes;
    if (total_bytes) *total_bytes = info.total_bytes;
  }
  return Code(r);
}

EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, std::size_t* size, CUdeviceptr ptr) {
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

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t bytes) {
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

EXPORT CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
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
EXPORT CUresult cuMemAllocHost_v2(void** ptr, std::size_t bytes) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (ptr == nullptr) return Code(CuResult::kInvalidValue);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  *ptr = std::malloc(bytes == 0 ? 1 : bytes);
  LogDriverCall("cuMemAllocHost_v2", absl::StrFormat("(%u bytes) -> 0", bytes));
  return *ptr ? 0 : Code(CuResult::kOutOfMemory);
}

EXPORT CUresult cuMemFreeHost(void* ptr) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  std::free(ptr);
  LogDriverCall("cuMemFreeHost", " -> 0");
  return 0;
}

EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr*, void*, unsigned int) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return NotImplemented("cuMemHostGetDevicePointer_v2");
}
EXPORT CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, std::size_t) {
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

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                                     CUstream stream) {
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
EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, std::size_t bytes,
                                     CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (!LegacyStream(stream)) return NotImplemented("cuMemcpyDtoHAsync_v2 on a created stream");
  return cuMemcpyDtoH_v2(dst, src, bytes);
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, std::size_t bytes,
                                     CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (!LegacyStream(stream)) return NotImplemented("cuMemcpyHtoDAsync_v2 on a created stream");
  return cuMemcpyHtoD_v2(dst, src, bytes);
}

// --- linking and modules -----------------------------------------------------

namespace {

void AnswerJitOptions(unsigned int count, const int* options, void** values) {
  if (options == nullptr || values == nullptr) return;
  for (unsigned int i = 0; i < count; ++i) {
    if (options[i] == kJitWallTime) {
      const float zero = 0;
      std::memcpy(&values[i], &zero, sizeof zero);
    } else if ((options[i] == kJitInfoLogBuffer || options[i] == kJitErrorLogBuffer) &&
               values[i] != nullptr) {
      // The size option follows the buffer option in the driver's numbering.
      for (unsigned int k = 0; k < count; ++k) {
        if (options[k] == options[i] + 1 && reinterpret_cast<std::uintptr_t>(values[k]) > 0) {
          static_cast<char*>(values[i])[0] = '\0';
        }
      }
    }
  }
}

CUresult LinkCreate(unsigned int count, int* options, void** values, CUlinkState* state) {
  if (state == nullptr) return Code(CuResult::kInvalidValue);
  if (CurrentContext() == nullptr) return Code(CuResult::kInvalidContext);
  AnswerJitOptions(count, options, values);
  *state = reinterpret_cast<CUlinkState>(new Link);
  return 0;
}

CUresult LinkAddData(CUlinkState state, int type, void* data, std::size_t size, const char* name,
                     const char* api) {
  if (state == nullptr || data == nullptr) return Code(CuResult::kInvalidValue);
  if (type != kJitInputPtx) {
    std::fprintf(stderr, "stackcheck libcuda: %s: input type %d is not PTX; only PTX links\n", api,
                 type);
    return Code(CuResult::kNotSupported);
  }
  auto* link = reinterpret_cast<Link*>(state);
  absl::string_view ptx(static_cast<const char*>(data), size);
  while (!ptx.empty() && ptx.back() == '\0') ptx.remove_suffix(1);
  stackcheck::libcuda::ParsePtx(ptx, &link->symbols);
  ++link->inputs;
  LogDriverCall(api, absl::StrCat("(PTX, ", size, " bytes, \"", name ? name : "", "\") -> 0 (",
                                  link->symbols.kernels.size(), " .entry, ",
                                  link->symbols.globals.size(), " .global so far)"));
  return 0;
}

}  // namespace

EXPORT CUresult cuLinkCreate(unsigned int n, int* options, void** values, CUlinkState* s) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkCreate(n, options, values, s);
}
EXPORT CUresult cuLinkCreate_v2(unsigned int n, int* options, void** values, CUlinkState* s) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkCreate(n, options, values, s);
}
EXPORT CUresult cuLinkAddData(CUlinkState s, int type, void* data, std::size_t size,
                              const char* name, unsigned int, int*, void**) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkAddData(s, type, data, size, name, "cuLinkAddData");
}
EXPORT CUresult cuLinkAddData_v2(CUlinkState s, int type, void* data, std::size_t size,
                                 const char* name, unsigned int, int*, void**) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return LinkAddData(s, type, data, size, name, "cuLinkAddData_v2");
}

EXPORT CUresult cuLinkComplete(CUlinkState state, void** image, std::size_t* size) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (state == nullptr || image == nullptr) return Code(CuResult::kInvalidValue);
  auto* link = reinterpret_cast<Link*>(state);
  link->image.assign(kImageMagic, sizeof kImageMagic);
  absl::StrAppend(&link->image, stackcheck::libcuda::FormatPtxDeclarations(link->symbols));
  *image = link->image.data();
  if (size) *size = link->image.size();
  LogDriverCall("cuLinkComplete", absl::StrCat("(", link->inputs, " PTX inputs) -> 0"));
  return 0;
}

EXPORT CUresult cuLinkDestroy(CUlinkState state) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  delete reinterpret_cast<Link*>(state);
  return 0;
}

EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (module == nullptr || image == nullptr) return Code(CuResult::kInvalidValue);
  const char* text = static_cast<const char*>(image);
  std::size_t size = 0;
  if (std::memcmp(text, kImageMagic, sizeof kImageMagic) == 0) {
    size = sizeof kImageMagic + std::strlen(text + sizeof kImageMagic);
  } else {
    size = std::strlen(text);
  }
  return LoadModule(module, absl::string_view(text, size), Symbol(DriverCall::kModuleLoad));
}

EXPORT CUresult cuModuleLoad(CUmodule* module, const char* path) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (module == nullptr || path == nullptr) return Code(CuResult::kInvalidValue);
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return Code(CuResult::kNotFound);
  std::string text;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  return LoadModule(module, text, "cuModuleLoad");
}

EXPORT CUresult cuModuleUnload(CUmodule handle) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (handle == nullptr) return Code(CuResult::kInvalidHandle);
  auto* m = reinterpret_cast<Module*>(handle);
  const CuResult r = RunOnDevice([&](Device& d) {
    CuResult r = d.ModuleUnload(m->sim);
    if (r != CuResult::kSuccess) return r;
    for (const auto& [name, global] : m->globals) {
      if (global.first != 0 && d.MemFree(global.first) == CuResult::kSuccess) {
        DropBlock(global.first);
      }
    }
    return r;
  });
  LogDriverCall(Symbol(DriverCall::kModuleUnload), absl::StrCat(" -> ", Name(r)));
  if (r == CuResult::kSuccess) delete m;
  return Code(r);
}

EXPORT CUresult cuModuleGetFunction(CUfunction* function, CUmodule handle, const char* name) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (function == nullptr || handle == nullptr || name == nullptr) {
    return Code(CuResult::kInvalidValue);
  }
  auto* m = reinterpret_cast<Module*>(handle);
  const stackcheck::libcuda::PtxKernel* kernel = nullptr;
  for (const auto& k : m->symbols.kernels) {
    if (k.name == name) kernel = &k;
  }
  stackcheck::FunctionHandle sim{};
  // Every entry is the simulator's OpenMP-shaped region kernel; for a name
  // the module does not declare the SimDevice is asked for the empty name, so
  // it answers with its admission error or NOT_FOUND.
  const CuResult r = RunOnDevice([&](Device& d) {
    return d.ModuleGetFunction(&sim, m->sim,
                               kernel ? stackcheck::kRegionKernel : absl::string_view());
  });
  LogDriverCall(Symbol(DriverCall::kModuleGetFunction),
                absl::StrCat("(\"", name, "\") -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  auto& slot = m->functions[name];
  if (!slot) {
    slot = std::make_unique<Function>();
    slot->name = name;
    slot->param_sizes = kernel->param_sizes;
    slot->sim = sim;
    slot->host = stackcheck::program::HostFunctionOf(name);
  }
  *function = reinterpret_cast<CUfunction>(slot.get());
  return 0;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr* ptr, std::size_t* bytes, CUmodule handle,
                                     const char* name) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (handle == nullptr || name == nullptr) return Code(CuResult::kInvalidValue);
  auto* m = reinterpret_cast<Module*>(handle);
  // The sticky error first (SEM-05: module calls fail with it too).
  CuResult r = RunOnDevice([](Device& d) {
    auto* sim = dynamic_cast<stackcheck::sim::SimDevice*>(&d);
    return sim ? sim->sticky() : CuResult::kSuccess;
  });
  auto it = m->globals.find(name);
  if (r == CuResult::kSuccess && it == m->globals.end()) r = CuResult::kNotFound;
  LogDriverCall("cuModuleGetGlobal_v2", absl::StrCat("(\"", name, "\") -> ", Name(r)));
  if (r != CuResult::kSuccess) return Code(r);
  if (ptr) *ptr = it->second.first;
  if (bytes) *bytes = it->second.second;
  return 0;
}

EXPORT CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction function) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (value == nullptr || function == nullptr) return Code(CuResult::kInvalidValue);
  // 64 registers per thread: with the device attributes above, the plugin's
  // default geometry is then 528 teams x 8 warps, what it chose on the H200
  // (docs/cuda-semantics.md, costs table).
  switch (attribute) {
    case kFuncMaxThreadsPerBlock:
      *value = 1024;
      break;
    case kFuncNumRegs:
      *value = 64;
      break;
    default:
      *value = 0;
      break;
  }
  return 0;
}

EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size,
                                                 CUfunction function, void*, std::size_t,
                                                 int block_size_limit) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (min_grid == nullptr || block_size == nullptr || function == nullptr) {
    return Code(CuResult::kInvalidValue);
  }
  // 32 registers per thread leave room for two 1024-thread blocks per SM.
  *block_size = block_size_limit > 0 && block_size_limit < 1024 ? block_size_limit : 1024;
  *min_grid = 132 * (2048 / *block_size);
  return 0;
}

// --- kernels ----------------------------------------------------------------

namespace {

// libgomp's kernels take exactly (variable table, stacks block, per-warp
// stack size), as GOMP_OFFLOAD_run passes them; the table is NULL for a
// region that maps nothing. Other kernels (none in GCC 12's OpenMP path) are
// read by their pointers: the first into a live block is taken as a table,
// the second as stacks. Called with g_mu held.
void ReadLaunchArguments(const std::vector<std::uint64_t>& words,
                         const std::vector<std::uint32_t>& sizes, stackcheck::KernelArgs* args) {
  if (sizes == std::vector<std::uint32_t>{8, 8, 8}) {
    args->vars = words[0];
    args->stacks = words[1];
    args->stack_size_per_warp = words[2];
    return;
  }
  int pointers = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const bool pointer = sizes[i] == 8 && FindBlock(words[i], 0) != nullptr;
    if (pointer) {
      if (pointers == 0) args->vars = words[i];
      if (pointers == 1) args->stacks = words[i];
      ++pointers;
    } else if (pointers == 2 && args->stack_size_per_warp == 0 && sizes[i] == 8) {
      args->stack_size_per_warp = words[i];
    }
  }
}

// Launched kernels' code, each waiting for its kernel to start.
// Never destroyed, like the tables above.
std::map<std::uint64_t, stackcheck::program::KernelLaunch>& g_bodies =
    *new std::map<std::uint64_t, stackcheck::program::KernelLaunch>;  // guarded by g_mu
std::uint64_t g_next_body = 0;                                        // guarded by g_mu

// Where a device variable's bytes are: in its block, or for a link
// variable behind the pointer its block holds (nullptr: not mapped yet).
// Called with g_mu held.
unsigned char* DeviceBytes(DevicePtr block, const stackcheck::program::HostVariable& host) {
  const Shadow* shadow = FindBlock(block, host.link ? sizeof(DevicePtr) : host.bytes);
  if (shadow == nullptr) return nullptr;
  if (!host.link) return shadow->data;
  DevicePtr data = 0;
  std::memcpy(&data, shadow->data, sizeof data);
  return data != 0 && FindBlock(data, host.bytes) != nullptr
             ? reinterpret_cast<unsigned char*>(data)
             : nullptr;
}

// The kernel's code names its `declare target` variables by their host
// symbols: while it runs, each host variable holds its device variable's
// bytes, which go back to the device after, and the host's own bytes are put
// back (every program thread is stopped meanwhile), so the memories stay
// separate, as on a GPU. A region that maps such a variable also reaches it
// through its table: those entries point at the host variable meanwhile, so
// that both ways lead to the same bytes.
stackcheck::program::KernelOutcome RunWithDeviceVariables(
    const stackcheck::program::KernelLaunch& launch) {
  struct Swap {
    unsigned char* host;
    unsigned char* device;
    std::vector<unsigned char> saved;
  };
  std::vector<Swap> swaps;
  struct Redirect {
    DevicePtr* entry;
    DevicePtr device;
  };
  std::vector<Redirect> redirects;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto* table = static_cast<DevicePtr*>(launch.vars);
    for (const auto& [block, host] : g_paired) {
      unsigned char* device = DeviceBytes(block, host);
      if (device == nullptr) continue;
      auto* bytes = static_cast<unsigned char*>(host.address);
      swaps.push_back(Swap{bytes, device, std::vector<unsigned char>(bytes, bytes + host.bytes)});
      std::memcpy(bytes, device, host.bytes);
      const auto start = reinterpret_cast<DevicePtr>(device);
      for (std::size_t i = 0; i < launch.table_entries; ++i) {
        if (table[i] >= start && table[i] - start < host.bytes) {
          redirects.push_back(Redirect{&table[i], table[i]});
          table[i] = reinterpret_cast<DevicePtr>(bytes) + (table[i] - start);
        }
      }
    }
  }
  stackcheck::program::KernelOutcome outcome = stackcheck::program::RunKernelBody(launch);
  for (const Redirect& r : redirects) *r.entry = r.device;
  for (Swap& swap : swaps) {
    std::memcpy(swap.device, swap.host, swap.saved.size());
    std::memcpy(swap.host, swap.saved.data(), swap.saved.size());
  }
  return outcome;
}

stackcheck::KernelAction RunBody(std::uint64_t token) {
  stackcheck::program::KernelLaunch launch;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_bodies.find(token);
    if (it == g_bodies.end()) return stackcheck::KernelAction::kRun;
    launch = std::move(it->second);
    g_bodies.erase(it);
  }
  const stackcheck::program::KernelOutcome outcome = RunWithDeviceVariables(launch);
  if (!outcome.trapped) return stackcheck::KernelAction::kRun;
  LogDriverNote(absl::StrCat("kernel \"", launch.kernel, "\" traps: ", outcome.why));
  return stackcheck::KernelAction::kTrap;
}

// The token of the code a launch of `f` with the table `vars` and `teams`
// blocks of `warps` warps runs (0: none, with the reason in *note). Called on the launching thread,
// inside the plugin's GOMP_OFFLOAD_run.
std::uint64_t PrepareBody(const Function& f, DevicePtr vars, unsigned teams, unsigned warps,
                          std::string* note) {
  if (f.host == nullptr) {
    *note = " [no host code: the kernel does not execute]";
    return 0;
  }
  if (!AddressableAt(vars)) {
    *note = " [its table is not at its device address: the kernel does not execute]";
    return 0;
  }
  stackcheck::program::KernelLaunch launch;
  launch.kernel = f.name;
  launch.function = f.host;
  launch.vars = reinterpret_cast<void*>(vars);
  if (vars != 0) launch.table_entries = stackcheck::program::CurrentRegionMapCount();
  launch.target_arguments =
      stackcheck::program::CopyTargetArguments(stackcheck::program::RunTargetArguments());
  launch.teams = std::max(1u, teams);
  launch.warps = std::max(1u, warps);
  std::lock_guard<std::mutex> lock(g_mu);
  g_bodies[++g_next_body] = std::move(launch);
  return g_next_body;
}

}  // namespace

EXPORT CUresult cuLaunchKernel(CUfunction function, unsigned int gx, unsigned int gy,
                               unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
                               unsigned int shared_bytes, CUstream stream, void** params,
                               void** extra) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (function == nullptr) return Code(CuResult::kInvalidHandle);
  auto* f = reinterpret_cast<Function*>(function);
  // The argument words, copied now (SEM-03).
  std::vector<std::uint64_t> words;
  std::vector<std::uint32_t> sizes;
  if (params != nullptr && extra != nullptr) return Code(CuResult::kInvalidValue);
  if (params != nullptr) {
    for (std::size_t i = 0; i < f->param_sizes.size(); ++i) {
      std::uint64_t w = 0;
      std::memcpy(&w, params[i], std::min<std::size_t>(f->param_sizes[i], sizeof w));
      words.push_back(w);
      sizes.push_back(f->param_sizes[i]);
    }
  } else if (extra != nullptr) {
    const char* buffer = nullptr;
    std::size_t size = 0;
    for (std::size_t i = 0; extra[i] != nullptr; i += 2) {
      const auto key = reinterpret_cast<std::uintptr_t>(extra[i]);
      if (key == 1) buffer = static_cast<const char*>(extra[i + 1]);
      if (key == 2) size = *static_cast<std::size_t*>(extra[i + 1]);
    }
    // The buffer holds the parameters at their natural alignment.
    std::size_t offset = 0;
    for (std::uint32_t s : f->param_sizes) {
      const std::size_t align = std::min<std::size_t>(s == 0 ? 1 : s, 8);
      offset = (offset + align - 1) / align * align;
      std::uint64_t w = 0;
      if (buffer != nullptr && offset + s <= size) {
        std::memcpy(&w, buffer + offset, std::min<std::size_t>(s, sizeof w));
      }
      words.push_back(w);
      sizes.push_back(s);
      offset += s;
    }
  }
  stackcheck::KernelArgs args;
  std::string described;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (std::size_t i = 0; i < words.size(); ++i) {
      DevicePtr base = 0;
      const bool pointer = sizes[i] == 8 && FindBlock(words[i], 0, &base) != nullptr;
      absl::StrAppendFormat(
          &described, "%s0x%x%s", i ? ", " : "", words[i],
          pointer ? absl::StrFormat(" (block 0x%x+%u)", base, words[i] - base) : std::string());
    }
    ReadLaunchArguments(words, sizes, &args);
  }
  args.duration_ns = 1000;
  // The fault plan's aborting launch: its kernel traps (device code calling
  // abort() or __builtin_trap()), counted over every launch of the process,
  // or over the launches of the kernels the plan names.
  static std::uint32_t launches = 0;
  const stackcheck::program::FaultPlan& plan = stackcheck::program::Faults();
  const bool counted = plan.abort_kernel.empty() || absl::StrContains(f->name, plan.abort_kernel);
  const bool traps = counted && ++launches == plan.abort_at_launch;
  if (traps) args.action = stackcheck::KernelAction::kTrap;
  // Otherwise its region's code runs when it starts.
  std::string body_note;
  if (!traps) args.body = PrepareBody(*f, words.empty() ? 0 : words[0], gx, by, &body_note);
  const CuResult r = RunOnDevice([&](Device& d) {
    if (args.body != 0) {
      if (auto* sim = dynamic_cast<stackcheck::sim::SimDevice*>(&d)) {
        sim->set_kernel_body_runner(&RunBody);
      }
    }
    return d.LaunchKernel(f->sim, stackcheck::Dim3{gx, gy, gz}, stackcheck::Dim3{bx, by, bz}, args,
                          ToSim(stream));
  });
  if (r != CuResult::kSuccess && args.body != 0) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_bodies.erase(args.body);  // never enqueued: its code never runs
  }
  LogDriverCall(Symbol(DriverCall::kLaunchKernel),
                absl::StrCat("(\"", f->name, "\", grid ", gx, "x", gy, "x", gz, ", block ", bx, "x",
                             by, "x", bz, ", shared ", shared_bytes, ", args [", described, "])",
                             traps ? " [fault plan: traps]" : "", " -> ", Name(r), body_note));
  return Code(r);
}

// --- streams and events ------------------------------------------------------

EXPORT CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (stream == nullptr) return Code(CuResult::kInvalidValue);
  stackcheck::StreamHandle s{};
  const CuResult r = RunOnDevice([&](Device& d) {
    return d.StreamCreate(&s, (flags & kStreamNonBlocking) ? stackcheck::StreamFlags::kNonBlocking
                                                           : stackcheck::StreamFlags::kBlocking);
  });
  LogDriverCall(Symbol(DriverCall::kStreamCreate),
                absl::StrCat("(flags=", flags, ") -> ", Name(r)));
  if (r == CuResult::kSuccess) *stream = FromSim(s);
  return Code(r);
}

EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.StreamDestroy(ToSim(stream)); });
  LogDriverCall(Symbol(DriverCall::kStreamDestroy), absl::StrCat(" -> ", Name(r)));
  return Code(r);
}

EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const CuResult r = RunOnDevice([&](Device& d) { return d.StreamSynchronize(ToSim(stream)); });
  LogDriverCall(Symbol(DriverCall::kStreamSynchronize), absl::StrCat(" -> ", Name(r)));
  return Code(r);
}

EXPORT CUresult cuStreamQuery(CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.StreamQuery(ToSim(stream)); }));
}

EXPORT CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback fn, void* user_data,
                                    unsigned int flags) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (fn == nullptr || flags != 0) return Code(CuResult::kInvalidValue);
  auto* call = new CallbackCall{fn, user_data};
  const CuResult r = RunOnDevice(
      [&](Device& d) { return d.StreamAddCallback(ToSim(stream), CallbackTrampoline, call); });
  LogDriverCall(Symbol(DriverCall::kStreamAddCallback), absl::StrCat(" -> ", Name(r)));
  if (r != CuResult::kSuccess) delete call;
  return Code(r);
}

EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  const auto e =
      static_cast<stackcheck::EventHandle>(reinterpret_cast<std::uintptr_t>(event) - kHandleBase);
  return Code(RunOnDevice([&](Device& d) { return d.StreamWaitEvent(ToSim(stream), e); }));
}

namespace {
stackcheck::EventHandle ToSimEvent(CUevent event) {
  return static_cast<stackcheck::EventHandle>(reinterpret_cast<std::uintptr_t>(event) -
                                              kHandleBase);
}
}  // namespace

EXPORT CUresult cuEventCreate(CUevent* event, unsigned int) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (event == nullptr) return Code(CuResult::kInvalidValue);
  stackcheck::EventHandle e{};
  const CuResult r = RunOnDevice([&](Device& d) { return d.EventCreate(&e); });
  if (r == CuResult::kSuccess) {
    *event = reinterpret_cast<CUevent>(static_cast<std::uintptr_t>(e) + kHandleBase);
  }
  return Code(r);
}

EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.EventDestroy(ToSimEvent(event)); }));
}

EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(
      RunOnDevice([&](Device& d) { return d.EventRecord(ToSimEvent(event), ToSim(stream)); }));
}

EXPORT CUresult cuEventQuery(CUevent event) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.EventQuery(ToSimEvent(event)); }));
}

EXPORT CUresult cuEventSynchronize(CUevent event) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return Code(RunOnDevice([&](Device& d) { return d.EventSynchronize(ToSimEvent(event)); }));
}

EXPORT CUresult cuEventElapsedTime(float*, CUevent, CUevent) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  return NotImplemented("cuEventElapsedTime");
}

// --- cuGetProcAddress ---------------------------------------------------------

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

EXPORT CUresult cuGetProcAddress(const char* symbol, void** fn, int, std::uint64_t) {
  if (InForkedChild()) return Code(CuResult::kNotInitialized);
  if (symbol == nullptr || fn == nullptr) return Code(CuResult::kInvalidValue);
  *fn = FindProc(symbol);
  return *fn ? 0 : Code(CuResult::kNotFound);
}

EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** fn, int, std::uint64_t,
                                    int* status) {
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
