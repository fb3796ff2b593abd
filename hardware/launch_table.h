// `bench launch`'s measurement: the driver's floors and every policy at four
// columns (8x8 and libgomp's default geometry, each with a tiny and a long
// kernel), each cell under a watchdog. A policy's cost is paired: every
// repetition of it runs right after one repetition of launch only, and the
// cost is the median of those ratios (launch only drifts within minutes).
//
// Each row is measured in a child process of its own, on a context of its
// own (child_process.h): a policy that hangs - v1b's deadlock - or fails
// costs its own row, the child is killed, and the other rows are measured.
#ifndef STACKCHECK_HARDWARE_LAUNCH_TABLE_H_
#define STACKCHECK_HARDWARE_LAUNCH_TABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "hardware/launch_bench.h"
#include "real/cuda_device.h"

namespace stackcheck::hardware {

struct LaunchTableSpec {
  // Empty: every policy, those whose expected verdict is a deadlock last.
  std::vector<const PolicyInfo*> policies;
  BenchOptions options;
  int long_kernel_us = 50;
  absl::Duration watchdog = absl::Seconds(60);  // per cell
  // Called with one line per row, measured or not.
  std::function<void(const std::string&)> progress;
};

struct LaunchColumn {
  BenchGeometry geometry;
  std::uint64_t kernel_ns = 0;
  std::string kernel;  // "tiny", "50us"
  std::string label;   // "8x8 tiny"
};

struct LaunchRow {
  std::string what;                // "launch only", "policy v2-gcc11"
  std::string policy;              // policy rows only: "v2-gcc11"
  std::vector<BenchFigure> cells;  // one per column measured
  // Policy rows measured in every column: per column, the median of the
  // paired ratios policy / launch only, and the median launch only (us).
  std::vector<double> ratio, launch_only_us;
  // A row that did not finish stopped at column cells.size().
  enum class End { kComplete, kFailed, kHung } end = End::kComplete;
  std::string failure;  // kFailed: the cell's error
};

struct LaunchTable {
  real::DeviceProperties device;
  std::uint32_t occupancy_teams = 0;  // resident blocks the occupancy API allows
  BenchOptions options;
  std::vector<LaunchColumn> columns;
  std::vector<LaunchRow> rows;  // the floors, then the policies
  // The rows that did not finish, hung or failed.
  std::vector<const LaunchRow*> Unfinished() const;
};

// Measures on the GPU: each row (and, first, the look at the device's
// properties) in a child that opens the GPU for itself; this process never
// initialises the driver. An error only when no child can tell the device's
// properties (no driver, no GPU: the loader's message).
absl::StatusOr<LaunchTable> MeasureLaunchTable(const LaunchTableSpec& spec);

// Opens what takes the measurements, in each row's child.
using OpenMeasurer = std::function<absl::StatusOr<std::unique_ptr<LaunchMeasurer>>()>;

// The same with the measurers `open` makes, on a device of `device`'s
// properties.
LaunchTable MeasureLaunchTableWith(const OpenMeasurer& open, const real::DeviceProperties& device,
                                   std::uint32_t occupancy_teams, const LaunchTableSpec& spec);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_LAUNCH_TABLE_H_
