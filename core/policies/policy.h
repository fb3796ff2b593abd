// The stack-cache policy interface: the part of an nvptx-plugin-shaped runtime
// that differs between libgomp's versions (V0..V3) and our own designs.
//
// core/runtime.h owns the device lifecycle (init, image, close, exit handler)
// and calls a Policy for everything that touches the soft-stack block: running
// a region, user allocations (soft limit, out-of-memory retry), device
// constructor/destructor kernels, and releasing the cache at close.
//
// Policies are written against core/device.h and core/host.h only, so the same
// code runs in the simulator and on real hardware. Errors are fatal, as in
// libgomp: a policy calls RuntimeContext::Fatal, which tells the observer and
// ends the (simulated) process through Host::Exit. Policies never catch
// exceptions: in the simulator Exit unwinds the fiber.
#ifndef STACKCHECK_CORE_POLICIES_POLICY_H_
#define STACKCHECK_CORE_POLICIES_POLICY_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/device.h"
#include "core/host.h"
#include "core/observer.h"
#include "core/scenario.h"

namespace stackcheck {

struct RuntimeOptions {
  // Above this, a cached stacks block is freed by the next device_alloc (V2+).
  std::uint64_t soft_limit = kDefaultSoftLimit;
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
  FunctionHandle region_kernel{};
  FunctionHandle ctor_dtor_kernel{};
  bool has_constructors = false;
  bool has_destructors = false;

  // Launches the OpenMP region kernel on the legacy NULL stream with libgomp's
  // geometry: grid (teams, 1, 1), block (32, warps, 1); every warp uses its
  // slot of `stacks`. An aborting region launches with KernelAction::kTrap.
  // With `completion`, the kernel writes `completion_value` into that host
  // word as it completes (KernelArgs::completion_word).
  CuResult LaunchRegion(const RegionSpec& region, DevicePtr stacks,
                        HostWordHandle completion = {},
                        std::uint32_t completion_value = 0);
  // Launches the one-warp constructor/destructor kernel on the NULL stream.
  CuResult LaunchCtorDtor(DevicePtr stacks);

  // Reports a fatal error naming `region` (kNoRegion if none) to the observer,
  // then runs the exit handlers and ends the process: Host::Exit(1), as
  // GOMP_PLUGIN_fatal does through exit().
  [[noreturn]] void Fatal(RegionId region, CuResult code,
                          absl::string_view message);
  // Fatal with libgomp's message shape for a failed driver call:
  // "cuCtxSynchronize error: <description>", plus " (perhaps abort was
  // called)" when the code is CUDA_ERROR_LAUNCH_FAILED (what __trap gives).
  [[noreturn]] void FatalCall(RegionId region, absl::string_view call,
                              CuResult code);
  static std::string CallErrorMessage(absl::string_view call, CuResult code);

  // A non-fatal error (GOMP_PLUGIN_error): used on the close path, which runs
  // inside the exit handlers and so must not call exit again.
  void Error(absl::string_view call, CuResult code);
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

  // Runs one target region (one kernel launch). Returns when the policy deems
  // the region done: after its kernel completed (synchronous policies), or
  // once it is safely enqueued (those declaring accepts_async_completion).
  virtual void Run(const RegionSpec& region) = 0;

  // A user allocation (omp_target_alloc / mapping). Failure after the
  // policy's own recovery is fatal; 0 is returned only when the device was
  // given up (closed by the exit path, or a fatal error raised on another
  // thread) while this call was in progress, as omp_target_alloc returns NULL
  // for a finalized device. The default is a
  // plain cuMemAlloc, as before GCC 11 had a soft limit or a retry.
  virtual DevicePtr DeviceAlloc(std::uint64_t bytes);
  // Frees a user allocation; the default is a plain cuMemFree, fatal on error.
  virtual void DeviceFree(DevicePtr ptr);

  // Device global constructors / destructors (ctx.has_constructors /
  // has_destructors). Versions before V3 did not run them: the default does
  // nothing.
  virtual void OnImageLoad() {}
  virtual void OnImageUnload() {}

  // Releases everything the policy holds, before the context is destroyed.
  // Runs on the close path (usually inside the exit handlers): errors are
  // reported with ctx.Error, never fatally.
  virtual void Close() = 0;

  // Bytes the stacks cache holds now. Read from any thread without the
  // policy's lock (an atomic snapshot), for RuntimeObserver::CacheHeld.
  virtual std::uint64_t CachedBytes() const = 0;

 protected:
  RuntimeContext& ctx_;
};

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_POLICY_H_
