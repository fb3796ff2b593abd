// The stack-cache policy interface: the part of an nvptx-plugin-shaped runtime
// that differs between libgomp's versions (V0..V3) and our own designs.
//
// core/runtime.h owns the device lifecycle (init, image, close, exit handler)
// and calls a Policy for everything that touches the soft-stack block: running
// a region, user allocations (soft limit, out-of-memory retry), device
// constructor/destructor kernels, and releasing the cache at close.
//
// Policies are written against core/device.h and core/host.h only, so the same
// code runs in the simulator and on real hardware. As in libgomp's plugin,
// errors in run are fatal (RuntimeContext::Fatal tells the observer and ends
// the (simulated) process through Host::Exit), while allocation, free, image
// load and close report an error and return failure, and the runtime above
// raises the fatal error after releasing its device lock (libgomp's target.c).
// Policies never catch exceptions: in the simulator Exit unwinds the fiber.
#ifndef STACKCHECK_CORE_POLICIES_POLICY_H_
#define STACKCHECK_CORE_POLICIES_POLICY_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/device.h"
#include "core/driver_call.h"
#include "core/host.h"
#include "core/observer.h"
#include "core/scenario.h"

namespace stackcheck {

struct RuntimeOptions {
  // Above this, a cached stacks block is freed by the next device_alloc (V2+).
  std::uint64_t soft_limit = kDefaultSoftLimit;
  // libgomp's target.c as GCC 12.2 ships it, where a thread that resolved
  // the device meets it finalized by another thread's exit: GOMP_target_ext
  // runs the region on it although gomp_map_vars returned NULL, and
  // omp_target_alloc/omp_target_free call the plugin without looking at the
  // state again; the plugin then faults on the device table a successful
  // close freed (Host::Crash). Off: those three look at the state under the
  // device lock, as gcc/patches/0003 makes them, and a region runs on the
  // host (docs/libgomp-model.md says where each departs from GCC).
  bool shipped_target = false;
};

// What the runtime shares with its policy: the backends, the loaded kernels,
// the options, and the plumbing every policy needs (launch geometry, error
// text, the fatal path), so that no policy carries its own copy.
class RuntimeContext {
 public:
  RuntimeContext(Device& device, Host& host, RuntimeObserver& observer,
                 const RuntimeOptions& options);
  RuntimeContext(const RuntimeContext&) = delete;
  RuntimeContext& operator=(const RuntimeContext&) = delete;

  Device& device;
  Host& host;
  RuntimeObserver& observer;
  const RuntimeOptions options;

  // Set by Runtime::LoadImage before Policy::OnImageLoad runs.
  ModuleHandle module{};
  FunctionHandle region_kernel{};
  FunctionHandle ctor_dtor_kernel{};
  bool has_constructors = false;
  bool has_destructors = false;

  // Launches the OpenMP region kernel on the legacy NULL stream with libgomp's
  // geometry: grid (teams, 1, 1), block (32, warps, 1); every warp uses its
  // slot of `stacks`. An aborting region launches with KernelAction::kTrap.
  // With `completion`, the kernel writes `completion_value` into that host
  // word as it completes (KernelArgs::completion_word).
  // `vars` is the region's variable table (0: it maps nothing).
  CuResult LaunchRegion(const RegionSpec& region, DevicePtr vars, DevicePtr stacks,
                        HostWordHandle completion = {}, std::uint32_t completion_value = 0);
  // Launches the one-warp constructor/destructor kernel on the NULL stream.
  CuResult LaunchCtorDtor(FunctionHandle kernel, DevicePtr stacks);

  // Tells the observer how much the stacks cache holds at the moment a
  // policy's soft limit has been applied (bounded-cache).
  void ReportCacheHeld(std::uint64_t held_bytes) { observer.CacheHeld(held_bytes); }

  // Reports a fatal error naming `region` (kNoRegion if none) to the observer,
  // then runs the exit handlers and ends the process: Host::Exit(1), as
  // GOMP_PLUGIN_fatal does through exit().
  [[noreturn]] void Fatal(RegionId region, CuResult code, absl::string_view message);
  // Fatal in two halves, for a caller that must print the message before it
  // releases a lock and only then exit: PrintFatal tells the observer,
  // ExitAfterFatal runs the exit handlers and ends the process.
  void PrintFatal(RegionId region, CuResult code, absl::string_view message);
  [[noreturn]] void ExitAfterFatal();
  // Fatal with libgomp's message shape for a failed driver call, named by
  // core/driver_call.h: "cuMemAlloc error: <description>".
  [[noreturn]] void FatalCall(RegionId region, DriverCall call, CuResult code);
  // The same for the wait that ends a region (GOMP_OFFLOAD_run's
  // cuCtxSynchronize): there, and only there, libgomp adds kAbortHint when
  // the code is CUDA_ERROR_LAUNCH_FAILED (what __trap gives).
  [[noreturn]] void FatalRegionWait(RegionId region, DriverCall call, CuResult code);
  // "<what failed> error: <description>", with kAbortHint after it when
  // `abort_hint` and the code is what __trap gives.
  static std::string FailureMessage(absl::string_view failed, CuResult code,
                                    bool abort_hint = false);
  // FailureMessage naming the driver call.
  static std::string CallErrorMessage(DriverCall call, CuResult code, bool abort_hint = false);

  // A non-fatal error (GOMP_PLUGIN_error): the message is printed (the
  // observer hears it) and the caller returns failure.
  void Error(DriverCall call, CuResult code, bool abort_hint = false);
  // The same, with the libgomp function that prints it before the call:
  // "nvptx_alloc: cuMemAlloc error: <description>".
  void ErrorIn(absl::string_view caller, DriverCall call, CuResult code);
  // A non-fatal message of libgomp's own (GOMP_PLUGIN_error / gomp_error).
  void ErrorMessage(CuResult code, absl::string_view message);
  std::vector<std::string> errors() const;

  // A rare path was taken (names in core/probes.h).
  void Probe(absl::string_view name) { observer.Probe(name); }

 private:
  // Bookkeeping only, never held across a Device or Host call, so it adds no
  // scheduling point in the simulator.
  mutable std::mutex errors_mu_;
  std::vector<std::string> errors_;
};

// One stack-cache policy. The runtime calls these from any host thread; a
// policy synchronises its own state with Host mutexes (a scheduling point in
// the simulator), which is exactly what the testbed explores.
class Policy {
 public:
  explicit Policy(RuntimeContext& ctx) : ctx_(ctx) {}
  virtual ~Policy() = default;
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  // Runs one target region (one kernel launch, GOMP_OFFLOAD_run) whose
  // variable table is `vars` (0: none). Returns when the policy deems the
  // region done: after its kernel completed (synchronous policies), or once
  // it is safely enqueued (those declaring accepts_async_completion).
  virtual void Run(const RegionSpec& region, DevicePtr vars) = 0;

  // Device memory for the program (GOMP_OFFLOAD_alloc): mapping and
  // omp_target_alloc, called with the runtime's device lock held. Returns 0
  // on failure, after reporting it with ctx.Error (never fatal: the caller
  // decides). The default - GCC 10's - is one cuMemAlloc and
  // ReportCacheHeld before it (no soft limit).
  virtual DevicePtr DeviceAlloc(std::uint64_t bytes);
  // GOMP_OFFLOAD_free, device lock held: false on failure (reported).
  virtual bool DeviceFree(DevicePtr ptr);
  // GOMP_OFFLOAD_host2dev / dev2host, device lock held: a synchronous copy
  // of `bytes` (the program's data: its content does not matter here); false
  // on failure (reported, as "cuMemcpyHtoD_v2 error: ...").
  virtual bool CopyToDevice(DevicePtr dst, std::uint64_t bytes);
  virtual bool CopyFromDevice(DevicePtr src, std::uint64_t bytes);

  // Device global constructors at image load (ctx.has_constructors), device
  // lock held; false on failure (reported), and the runtime raises the fatal
  // error. Versions before V3 did not run them: the default does nothing.
  virtual bool OnImageLoad() { return true; }

  // GOMP_OFFLOAD_fini_device: runs the destructors (ctx.has_destructors) and
  // releases everything the policy holds, before the runtime destroys the
  // context. Runs inside the exit handlers with the device lock held. Stops
  // at the first failing driver call, as libgomp's close does, and returns
  // false; the runtime then raises "device finalization failed".
  virtual bool Close() = 0;

  // Bytes the stacks cache holds now. Read from any thread without the
  // policy's lock (an atomic snapshot), for RuntimeObserver::CacheHeld.
  virtual std::uint64_t CachedBytes() const = 0;

 protected:
  // The copy itself, with a scratch host buffer.
  CuResult CopyCall(bool to_device, DevicePtr ptr, std::uint64_t bytes);

  RuntimeContext& ctx_;
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_POLICY_H_
