// The device interface: the slice of the CUDA Driver API that an offload
// runtime's launch path uses, and nothing more.
//
// Two backends implement it: sim/ (a deterministic fake GPU in which every call
// is a scheduling point) and real/ (the CUDA driver, loaded with dlopen). The
// runtime in core/ is written against this header only, so the same policy code
// is explored in the simulator and validated on hardware.
//
// Conventions follow the driver: every call returns a CuResult with cuda.h's
// values, out-parameters are pointers, handles are opaque. One Device object is
// one device with one (primary) context; the backend makes it current on
// whichever host thread calls.
#ifndef STACKCHECK_CORE_DEVICE_H_
#define STACKCHECK_CORE_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/cu_result.h"

namespace stackcheck {

// A device address. 0 is the null pointer.
using DevicePtr = std::uint64_t;

// Opaque handles. Value 0 of StreamHandle is the legacy NULL stream (SEM-02).
enum class StreamHandle : std::uint32_t {};
enum class EventHandle : std::uint32_t {};
enum class ModuleHandle : std::uint32_t {};
enum class FunctionHandle : std::uint32_t {};
enum class HostWordHandle : std::uint32_t {};  // 0: none

inline constexpr StreamHandle kLegacyStream{0};

enum class StreamFlags {
  kBlocking,     // CU_STREAM_DEFAULT: synchronises with the legacy stream.
  kNonBlocking,  // CU_STREAM_NON_BLOCKING: exempt from the legacy barrier.
};

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

// What a kernel does, chosen by the caller so that both backends run the same
// behaviour: the simulator models it, the real PTX kernel executes it.
enum class KernelAction : std::uint8_t {
  kRun,   // every warp tags its stack slot, works for duration_ns, checks the tags
  kTrap,  // __trap(): the context becomes poisoned with the trap code (SEM-04)
};

// The OpenMP-shaped kernel's arguments: (stacks base, per-warp stack size) as in
// libgomp, plus what the testbed needs to make overlap and reuse visible. They
// are copied at launch (SEM-03).
struct KernelArgs {
  // libgomp's first kernel argument: the region's variable table, which
  // lives in the device block the region's mapping allocated (0: nothing
  // mapped). The kernel reads and writes that block while it runs.
  DevicePtr vars = 0;
  // A program allocation the table carries (is_device_ptr) and the kernel
  // reads and writes while it runs (0: none). The simulator's kernel uses
  // it; the real PTX kernel does not dereference it.
  DevicePtr data = 0;
  DevicePtr stacks = 0;
  std::uint64_t stack_size_per_warp = 0;  // bytes per warp slot
  std::uint32_t region_tag = 0;           // written into the slot ends
  std::uint64_t duration_ns = 0;          // how long each warp works
  KernelAction action = KernelAction::kRun;
  // If set, the kernel's device-side epilogue (the last block to finish)
  // writes completion_value into this host word; a kernel that traps or is
  // dropped never does (EXT-02). libgomp's device-side entry code is the
  // runtime's own, so a runtime can do this at no host cost. Kernels that
  // carry a completion word must not run concurrently with one another (put
  // them on one stream): they share the backend's block counter.
  HostWordHandle completion_word{};
  std::uint32_t completion_value = 0;
  // The code the kernel runs, as a token of whoever launches it (0: none).
  // The simulator hands it to its kernel-body runner when the kernel starts
  // (sim_device.h); the real backend runs its PTX and ignores it.
  std::uint64_t body = 0;
};

// Callbacks run on the driver's callback thread (SEM-07), never on the thread
// that enqueued them, and must not call the driver (SEM-09).
using StreamCallbackFn = void (*)(StreamHandle stream, CuResult status, void* user_data);
using HostFn = void (*)(void* user_data);

// A snapshot of device memory as cuMemGetInfo reports it (SEM-12).
struct MemInfo {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  // --- context (cuInit + cuCtxCreate / cuCtxDestroy; the CUDA backend
  // retains and releases the primary context) ---
  virtual CuResult Init() = 0;
  virtual CuResult CtxCreate() = 0;
  // Drains pending work first, then invalidates every allocation (SEM-15).
  virtual CuResult CtxDestroy() = 0;
  virtual CuResult CtxSynchronize() = 0;

  // --- memory (SEM-10..13) ---
  virtual CuResult MemAlloc(DevicePtr* ptr, std::uint64_t bytes) = 0;
  virtual CuResult MemFree(DevicePtr ptr) = 0;
  virtual CuResult MemGetInfo(MemInfo* info) = 0;
  virtual CuResult MemAllocAsync(DevicePtr* ptr, std::uint64_t bytes, StreamHandle stream) = 0;
  virtual CuResult MemFreeAsync(DevicePtr ptr, StreamHandle stream) = 0;
  // Synchronous copies (cuMemcpyHtoD / cuMemcpyDtoH): issued on the legacy
  // stream, so they wait for the work queued before them there (and, through
  // SEM-02, on every blocking stream), then copy. [dst, dst + bytes) (or the
  // source range) must lie inside one live allocation.
  virtual CuResult MemcpyHtoD(DevicePtr dst, const void* src, std::uint64_t bytes) = 0;
  virtual CuResult MemcpyDtoH(void* dst, DevicePtr src, std::uint64_t bytes) = 0;

  // --- modules and kernels ---
  // `image` names an embedded image (the real backend loads its PTX; the
  // simulator knows the kernels each image holds).
  virtual CuResult ModuleLoad(ModuleHandle* module, absl::string_view image) = 0;
  virtual CuResult ModuleUnload(ModuleHandle module) = 0;
  virtual CuResult ModuleGetFunction(FunctionHandle* function, ModuleHandle module,
                                     absl::string_view name) = 0;
  virtual CuResult LaunchKernel(FunctionHandle function, Dim3 grid, Dim3 block,
                                const KernelArgs& args, StreamHandle stream) = 0;

  // --- streams (SEM-01, 02, 08, 14) ---
  virtual CuResult StreamCreate(StreamHandle* stream, StreamFlags flags) = 0;
  virtual CuResult StreamDestroy(StreamHandle stream) = 0;
  virtual CuResult StreamSynchronize(StreamHandle stream) = 0;
  virtual CuResult StreamQuery(StreamHandle stream) = 0;
  virtual CuResult StreamAddCallback(StreamHandle stream, StreamCallbackFn fn, void* user_data) = 0;
  virtual CuResult LaunchHostFunc(StreamHandle stream, HostFn fn, void* user_data) = 0;

  // --- events (SEM-14) ---
  virtual CuResult EventCreate(EventHandle* event) = 0;
  virtual CuResult EventDestroy(EventHandle event) = 0;
  virtual CuResult EventRecord(EventHandle event, StreamHandle stream) = 0;
  virtual CuResult EventQuery(EventHandle event) = 0;
  virtual CuResult EventSynchronize(EventHandle event) = 0;
  virtual CuResult StreamWaitEvent(StreamHandle stream, EventHandle event) = 0;

  // --- host words: device-written host memory (EXT-01/02, sim/README.md) ---
  // A 32-bit word of pinned, device-mapped host memory (cuMemHostAlloc with
  // CU_MEMHOSTALLOC_DEVICEMAP), initially 0, that a stream can write in
  // stream order (cuStreamWriteValue32, EXT-01) and a kernel can write as it
  // completes (KernelArgs::completion_word, EXT-02). The host reads it with a
  // plain load, not a driver call, so it can still be read after a sticky
  // error (SEM-05): it then holds the last value written before the fault,
  // which is what lets a runtime tell which of several queued kernels
  // aborted.
  virtual CuResult HostWordAlloc(HostWordHandle* word) = 0;
  virtual CuResult HostWordFree(HostWordHandle word) = 0;
  virtual CuResult StreamWriteValue32(StreamHandle stream, HostWordHandle word,
                                      std::uint32_t value) = 0;
  // The word's value as the host sees it now. Never fails; 0 for a handle
  // that is not live.
  virtual std::uint32_t HostWordLoad(HostWordHandle word) = 0;
};

// Names of the kernels in the image every backend provides ("stackcheck").
inline constexpr absl::string_view kKernelImage = "stackcheck";
inline constexpr absl::string_view kRegionKernel = "omp_region";
// A one-warp kernel standing for device global constructors/destructors,
// under the name trunk's nvptx plugin looks for in OpenMP images (the
// "__mgomp" variant, which runs on soft stacks).
inline constexpr absl::string_view kCtorDtorKernel = "ctor_dtor__mgomp";

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_DEVICE_H_
