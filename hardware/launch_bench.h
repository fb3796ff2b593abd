// The launch-cost benchmark: microseconds per OpenMP-shaped kernel launch for
// each stack-cache policy, next to the raw floors the driver allows (launch
// alone, + event record, + stream callback, + host function, + context
// synchronise, alloc+launch+synchronise+free). The method: back-to-back
// launches, one final context synchronise, median over repetitions.
#ifndef STACKCHECK_HARDWARE_LAUNCH_BENCH_H_
#define STACKCHECK_HARDWARE_LAUNCH_BENCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "real/cuda_device.h"
#include "real/os_host.h"

namespace stackcheck::hardware {

struct BenchGeometry {
  std::uint32_t teams = 8;
  std::uint32_t warps = 8;
  std::string Label() const;  // "8x8"
};

enum class Floor {
  kLaunchOnly,
  kLaunchEvent,
  kLaunchWriteValue,  // event-fence's ledger write (EXT-01)
  kLaunchCallback,
  kLaunchHostFunc,
  kLaunchCtxSync,
  kAllocLaunchSyncFree,
};
inline constexpr Floor kAllFloors[] = {Floor::kLaunchOnly,         Floor::kLaunchEvent,
                                       Floor::kLaunchWriteValue,   Floor::kLaunchCallback,
                                       Floor::kLaunchHostFunc,     Floor::kLaunchCtxSync,
                                       Floor::kAllocLaunchSyncFree};
absl::string_view FloorName(Floor f);  // "launch only", "launch + cuEventRecord"

struct BenchOptions {
  int launches = 1000;  // per repetition, at most
  int repetitions = 5;
  // A repetition stops early after this long (V0 at default geometry pays an
  // allocation and a free per launch); it still counts at least
  // `min_launches`.
  absl::Duration max_repetition = absl::Milliseconds(400);
  int min_launches = 20;
  // Policy figures only: each region also maps this many variables as
  // libgomp's gomp_map_vars / gomp_unmap_vars do (one allocation, copies in,
  // copies back, a free), so the figure is a region's, not a launch's.
  int mapped_vars = 0;
};

struct BenchFigure {
  double us_per_launch = 0;  // median over repetitions
  double us_min = 0;         // fastest repetition
  int launches = 0;          // per repetition (of the last one)
};

// What takes the measurements: the GPU (LaunchBench), or a test's stand-in.
class LaunchMeasurer {
 public:
  virtual ~LaunchMeasurer() = default;
  virtual absl::StatusOr<BenchFigure> MeasureFloor(Floor floor, BenchGeometry g,
                                                   std::uint64_t kernel_ns,
                                                   const BenchOptions& options) = 0;
  virtual absl::StatusOr<BenchFigure> MeasurePolicy(const PolicyInfo& policy, BenchGeometry g,
                                                    std::uint64_t kernel_ns,
                                                    const BenchOptions& options) = 0;
};

class LaunchBench final : public LaunchMeasurer {
 public:
  // Loads the driver, creates the context, loads the kernels. The error is
  // the loader's one line when there is no driver.
  static absl::StatusOr<std::unique_ptr<LaunchBench>> Open(int ordinal = 0);
  // Destroys the context, so a leak checker sees everything given back.
  ~LaunchBench() override;

  const real::DeviceProperties& properties() const { return properties_; }
  // libgomp's default team count: SMs x resident blocks of (32 x warps).
  absl::StatusOr<std::uint32_t> DefaultTeams(std::uint32_t warps);

  absl::StatusOr<BenchFigure> MeasureFloor(Floor floor, BenchGeometry g, std::uint64_t kernel_ns,
                                           const BenchOptions& options) override;
  absl::StatusOr<BenchFigure> MeasurePolicy(const PolicyInfo& policy, BenchGeometry g,
                                            std::uint64_t kernel_ns,
                                            const BenchOptions& options) override;

 private:
  LaunchBench(std::unique_ptr<real::CudaDevice> device) : device_(std::move(device)) {}
  // Times `one_launch` back to back, ending each repetition with a context
  // synchronise; `one_launch` returns false on a driver error.
  template <typename F>
  absl::StatusOr<BenchFigure> Time(const BenchOptions& options, F one_launch);

  std::unique_ptr<real::CudaDevice> device_;
  real::OsHost host_;
  real::DeviceProperties properties_;
  FunctionHandle region_{};
  FunctionHandle ctor_dtor_{};
};

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_LAUNCH_BENCH_H_
