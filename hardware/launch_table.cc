#include "hardware/launch_table.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hardware/child_process.h"
#include "properties/expected_verdicts.h"

namespace stackcheck::hardware {
namespace {

// One cell's result; a policy's also carries its paired figures.
struct Cell {
  BenchFigure figure;
  double ratio = 0;           // median of policy / launch only
  double launch_only_us = 0;  // median launch only
};
// Measures one cell of a row with the child's measurer.
using MeasureCell = std::function<absl::StatusOr<Cell>(LaunchMeasurer&, const LaunchColumn&)>;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<const PolicyInfo*> DefaultOrder() {
  std::vector<const PolicyInfo*> order, may_hang;
  for (const PolicyInfo& p : AllPolicies()) {
    const bool deadlocks =
        properties::ExpectedVerdict(p.name, "no-deadlock") != properties::Expectation::kHolds;
    (deadlocks ? may_hang : order).push_back(&p);
  }
  order.insert(order.end(), may_hang.begin(), may_hang.end());
  return order;
}

// A policy's cell: each repetition right after one of launch only.
absl::StatusOr<Cell> PairedPolicyCell(LaunchMeasurer& m, const PolicyInfo& p, const LaunchColumn& c,
                                      const BenchOptions& options) {
  BenchOptions one = options;
  one.repetitions = 1;
  std::vector<double> policy_us, launch_only_us, ratios;
  Cell cell;
  for (int rep = 0; rep < options.repetitions; ++rep) {
    absl::StatusOr<BenchFigure> floor =
        m.MeasureFloor(Floor::kLaunchOnly, c.geometry, c.kernel_ns, one);
    if (!floor.ok()) return floor.status();
    absl::StatusOr<BenchFigure> f = m.MeasurePolicy(p, c.geometry, c.kernel_ns, one);
    if (!f.ok()) return f.status();
    policy_us.push_back(f->us_per_launch);
    launch_only_us.push_back(floor->us_per_launch);
    ratios.push_back(f->us_per_launch / floor->us_per_launch);
    cell.figure.launches = f->launches;
  }
  cell.figure.us_per_launch = Median(policy_us);
  cell.figure.us_min = *std::min_element(policy_us.begin(), policy_us.end());
  cell.ratio = Median(ratios);
  cell.launch_only_us = Median(launch_only_us);
  return cell;
}

// The child's lines: "cell US US_MIN LAUNCHES RATIO LAUNCH_ONLY_US" per
// measured cell, "failed MESSAGE" where a cell (or opening) failed.
std::string CellLine(const Cell& c) {
  return absl::StrFormat("cell %.17g %.17g %d %.17g %.17g", c.figure.us_per_launch, c.figure.us_min,
                         c.figure.launches, c.ratio, c.launch_only_us);
}

bool ParseCellLine(absl::string_view line, Cell* c) {
  std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
  return f.size() == 6 && f[0] == "cell" && absl::SimpleAtod(f[1], &c->figure.us_per_launch) &&
         absl::SimpleAtod(f[2], &c->figure.us_min) && absl::SimpleAtoi(f[3], &c->figure.launches) &&
         absl::SimpleAtod(f[4], &c->ratio) && absl::SimpleAtod(f[5], &c->launch_only_us);
}

// Measures `row` in every column, in a child of its own that opens its own
// measurer; the watchdog bounds each cell.
void MeasureRow(LaunchRow& row, const std::vector<LaunchColumn>& columns, const OpenMeasurer& open,
                const MeasureCell& measure, absl::Duration watchdog) {
  absl::StatusOr<ChildOutput> child = RunInChild(
      [&](const EmitLine& emit) {
        absl::StatusOr<std::unique_ptr<LaunchMeasurer>> m = open();
        if (!m.ok()) return emit(absl::StrCat("failed ", m.status().message()));
        for (const LaunchColumn& c : columns) {
          absl::StatusOr<Cell> cell = measure(**m, c);
          if (!cell.ok()) return emit(absl::StrCat("failed ", cell.status().message()));
          emit(CellLine(*cell));
        }
      },
      watchdog);
  if (!child.ok()) {
    row.end = LaunchRow::End::kFailed;
    row.failure = std::string(child.status().message());
    return;
  }
  for (const std::string& line : child->lines) {
    Cell cell;
    if (ParseCellLine(line, &cell)) {
      row.cells.push_back(cell.figure);
      if (!row.policy.empty()) {
        row.ratio.push_back(cell.ratio);
        row.launch_only_us.push_back(cell.launch_only_us);
      }
      continue;
    }
    row.end = LaunchRow::End::kFailed;
    row.failure = std::string(absl::StripPrefix(line, "failed "));
    return;
  }
  if (child->hung) {
    row.end = LaunchRow::End::kHung;
  } else if (row.cells.size() != columns.size()) {
    row.end = LaunchRow::End::kFailed;
    row.failure = absl::StrCat("the measuring process ended early: ", child->abnormal_end);
  }
}

std::vector<LaunchColumn> Columns(const real::DeviceProperties& device, int long_kernel_us) {
  // libgomp's default on an H200 is 132 SMs x 4 = 528 teams (the reference
  // figures' geometry); the occupancy API alone would allow more.
  const std::uint32_t teams = static_cast<std::uint32_t>(device.sm_count * 4);
  const std::string long_kernel = absl::StrCat(long_kernel_us, "us");
  const std::uint64_t long_ns = static_cast<std::uint64_t>(long_kernel_us) * 1000;
  std::vector<LaunchColumn> columns;
  for (std::uint32_t g : {8u, teams}) {
    for (bool is_long : {false, true}) {
      LaunchColumn c;
      c.geometry = {g, 8};
      c.kernel_ns = is_long ? long_ns : 0;
      c.kernel = is_long ? long_kernel : "tiny";
      c.label = absl::StrCat(c.geometry.Label(), " ", c.kernel);
      columns.push_back(std::move(c));
    }
  }
  return columns;
}

std::string ProgressLine(const LaunchRow& row, const std::vector<LaunchColumn>& columns) {
  std::string line = absl::StrCat("measured ", row.what, ":");
  for (const BenchFigure& f : row.cells) absl::StrAppendFormat(&line, " %.2f", f.us_per_launch);
  line += " us";
  if (row.end == LaunchRow::End::kHung) {
    absl::StrAppend(&line, "; hung at ", columns[row.cells.size()].label,
                    " (its process was killed)");
  } else if (row.end == LaunchRow::End::kFailed) {
    absl::StrAppend(&line, "; failed: ", row.failure);
  }
  return line;
}

}  // namespace

std::vector<const LaunchRow*> LaunchTable::Unfinished() const {
  std::vector<const LaunchRow*> unfinished;
  for (const LaunchRow& row : rows) {
    if (row.end != LaunchRow::End::kComplete) unfinished.push_back(&row);
  }
  return unfinished;
}

LaunchTable MeasureLaunchTableWith(const OpenMeasurer& open, const real::DeviceProperties& device,
                                   std::uint32_t occupancy_teams, const LaunchTableSpec& spec) {
  LaunchTable t;
  t.device = device;
  t.occupancy_teams = occupancy_teams;
  t.options = spec.options;
  t.columns = Columns(device, spec.long_kernel_us);
  const BenchOptions options = spec.options;
  auto row = [&](LaunchRow r, const MeasureCell& measure) {
    MeasureRow(r, t.columns, open, measure, spec.watchdog);
    if (spec.progress) spec.progress(ProgressLine(r, t.columns));
    t.rows.push_back(std::move(r));
  };
  for (Floor floor : kAllFloors) {
    row({std::string(FloorName(floor)), "", {}, {}, {}, LaunchRow::End::kComplete, ""},
        [=](LaunchMeasurer& m, const LaunchColumn& c) -> absl::StatusOr<Cell> {
          absl::StatusOr<BenchFigure> f = m.MeasureFloor(floor, c.geometry, c.kernel_ns, options);
          if (!f.ok()) return f.status();
          return Cell{*f, 0, 0};
        });
  }
  for (const PolicyInfo* p : spec.policies.empty() ? DefaultOrder() : spec.policies) {
    row({absl::StrCat("policy ", p->name), p->name, {}, {}, {}, LaunchRow::End::kComplete, ""},
        [=](LaunchMeasurer& m, const LaunchColumn& c) {
          return PairedPolicyCell(m, *p, c, options);
        });
  }
  return t;
}

absl::StatusOr<LaunchTable> MeasureLaunchTable(const LaunchTableSpec& spec) {
  // The device's properties, told by a child too: the driver must not be
  // initialised in a process that forks children which use it.
  absl::StatusOr<ChildOutput> probe = RunInChild(
      [](const EmitLine& emit) {
        absl::StatusOr<std::unique_ptr<LaunchBench>> bench = LaunchBench::Open();
        if (!bench.ok()) return emit(absl::StrCat("failed ", bench.status().message()));
        absl::StatusOr<std::uint32_t> occupancy = (*bench)->DefaultTeams(8);
        if (!occupancy.ok()) return emit(absl::StrCat("failed ", occupancy.status().message()));
        const real::DeviceProperties& d = (*bench)->properties();
        emit(absl::StrFormat("device %d %d %d %d %d %u", d.ordinal, d.sm_count, d.cc_major,
                             d.cc_minor, d.driver_version, *occupancy));
        emit(d.name);
      },
      spec.watchdog);
  if (!probe.ok()) return probe.status();
  if (probe->hung) return absl::UnavailableError("opening the GPU did not finish in time");
  const std::vector<std::string>& lines = probe->lines;
  real::DeviceProperties d;
  std::uint32_t occupancy = 0;
  std::vector<absl::string_view> f;
  if (!lines.empty()) f = absl::StrSplit(lines[0], ' ');
  if (lines.size() != 2 || f.size() != 7 || f[0] != "device" ||
      !absl::SimpleAtoi(f[1], &d.ordinal) || !absl::SimpleAtoi(f[2], &d.sm_count) ||
      !absl::SimpleAtoi(f[3], &d.cc_major) || !absl::SimpleAtoi(f[4], &d.cc_minor) ||
      !absl::SimpleAtoi(f[5], &d.driver_version) || !absl::SimpleAtoi(f[6], &occupancy)) {
    if (!lines.empty() && absl::StartsWith(lines[0], "failed ")) {
      return absl::UnavailableError(absl::StripPrefix(lines[0], "failed "));
    }
    return absl::InternalError(absl::StrCat(
        "the process that opened the GPU ended without its properties: ", probe->abnormal_end));
  }
  d.name = lines[1];
  OpenMeasurer open = []() -> absl::StatusOr<std::unique_ptr<LaunchMeasurer>> {
    absl::StatusOr<std::unique_ptr<LaunchBench>> bench = LaunchBench::Open();
    if (!bench.ok()) return bench.status();
    return std::unique_ptr<LaunchMeasurer>(std::move(*bench));
  };
  return MeasureLaunchTableWith(open, d, occupancy, spec);
}

}  // namespace stackcheck::hardware
