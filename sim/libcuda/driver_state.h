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
//
// This header holds what the entry-point files (entry_*.cc) share: the
// driver ABI's types, the shadows of device memory, the loaded modules'
// records. An entry point is a C symbol (STACKCHECK_CUDA_EXPORT) inside
// namespace stackcheck::libcuda.
#ifndef STACKCHECK_SIM_LIBCUDA_DRIVER_STATE_H_
#define STACKCHECK_SIM_LIBCUDA_DRIVER_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/cu_result.h"
#include "core/device.h"
#include "core/driver_call.h"
#include "sim/libcuda/bridge.h"
#include "sim/libcuda/ptx_symbols.h"
#include "sim/program/entry_point.h"
#include "sim/program/kernel_body.h"
#include "sim/program/offload_images.h"
#include "sim/program/program_threads.h"

// Every entry point but cuGetErrorString first refuses a process forked from
// a controlled one (program_threads.h, InForkedChild) with
// CUDA_ERROR_NOT_INITIALIZED: the child inherits no usable context. That a
// real driver's calls fail so in such a child is assumed, not yet measured
// (tests/programs/fork_wait.c, region mode, is the GPU check).
#define STACKCHECK_CUDA_EXPORT \
  extern "C" __attribute__((visibility("default"))) STACKCHECK_ENTRY_POINT

namespace stackcheck::libcuda {

using program::InForkedChild;

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

inline int Code(CuResult r) { return static_cast<int>(r); }

// The export of a call the SimDevice serves, as core's table names it.
inline absl::string_view Symbol(DriverCall call) { return DriverCallSymbol(call); }

// "2 CUDA_ERROR_OUT_OF_MEMORY", for the call log.
std::string Name(CuResult r);

// An entry point the simulator does not implement: prints one line naming
// it and returns CUDA_ERROR_NOT_SUPPORTED.
CUresult NotImplemented(const char* name);

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
extern std::mutex g_mu;  // guards the tables below (not the device: the bridge does)
extern std::map<DevicePtr, Shadow>& g_blocks;
// The device variables of loaded modules paired with the program's host
// variables, by the device block.
extern std::map<DevicePtr, program::HostVariable>& g_paired;

// The calling thread's current context (nullptr: none); entry_context.cc.
CUcontext CurrentContext();

// A block holding [ptr, ptr + bytes); nullptr if none.
Shadow* FindBlock(DevicePtr ptr, std::uint64_t bytes, DevicePtr* base = nullptr);

inline StreamHandle ToSim(CUstream s) {
  const auto v = reinterpret_cast<std::uintptr_t>(s);
  if (v < kHandleBase) return stackcheck::kLegacyStream;  // NULL, CU_STREAM_LEGACY
  return static_cast<stackcheck::StreamHandle>(v - kHandleBase);
}
inline CUstream FromSim(StreamHandle s) {
  const auto v = static_cast<std::uintptr_t>(s);
  return v == 0 ? nullptr : reinterpret_cast<CUstream>(v + kHandleBase);
}

// Allocates a block on the device and maps its bytes at its device address.
CuResult AllocateBlock(Device& d, DevicePtr* ptr, std::uint64_t bytes);
// Forgets a freed block's bytes (and its pairing with a host variable).
void DropBlock(DevicePtr ptr);
// Forgets every block: the context is gone.
void DropAllBlocks();
// Whether a kernel's code can run on the block holding `ptr` (0: no block
// needed).
bool AddressableAt(DevicePtr ptr);

}  // namespace stackcheck::libcuda

#endif  // STACKCHECK_SIM_LIBCUDA_DRIVER_STATE_H_
