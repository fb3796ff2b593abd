// `bench launch`'s measurement: the driver's floors and every policy at four
// columns (8x8 and libgomp's default geometry, each with a tiny and a long
// kernel), each cell under a watchdog. A policy's cost is paired: every
// repetition of it runs right after one repetition of launch only, and the
// cost is the median of those ratios (launch only drifts within minutes).
#ifndef STACKCHECK_HARDWARE_LAUNCH_TABLE_H_
#define STACKCHECK_HARDWARE_LAUNCH_TABLE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/policies/registry.h"
#include "hardware/launch_bench.h"
#include "real/cuda_device.h"

namespace stackcheck::hardware {

struct LaunchTableSpec {
  // Empty: every policy, those whose expected verdict is a deadlock last (a
  // hang ends the measurement, so the others are measured by then).
  std::vector<const PolicyInfo*> policies;
  BenchOptions options;
  int long_kernel_us = 50;
  absl::Duration watchdog = absl::Seconds(60);  // per cell
  // Called with one line per measured row.
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
};

struct LaunchTable {
  real::DeviceProperties device;
  std::uint32_t occupancy_teams = 0;  // resident blocks the occupancy API allows
  BenchOptions options;
  std::vector<LaunchColumn> columns;
  std::vector<LaunchRow> rows;  // the floors, then the policies
  // The measurement stops at a failed or hung cell; it is in rows.back()'s
  // column rows.back().cells.size().
  enum class End { kComplete, kFailed, kHung } end = End::kComplete;
  std::string failure;                    // kFailed: the cell's error
  std::vector<std::string> not_measured;  // kHung: the policies left
};

// Opens the GPU and measures. After a hang the GPU is left open, one thread
// blocked in the driver for good: the caller reports and ends the process
// with std::_Exit (destructors would wait on that thread).
absl::StatusOr<LaunchTable> MeasureLaunchTable(const LaunchTableSpec& spec);

// The same with `measurer` on a device of `device`'s properties; after a
// hang `measurer` must outlive the process.
LaunchTable MeasureLaunchTableWith(LaunchMeasurer& measurer, const real::DeviceProperties& device,
                                   std::uint32_t occupancy_teams, const LaunchTableSpec& spec);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_LAUNCH_TABLE_H_
