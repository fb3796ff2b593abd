#include "hardware/launch_table.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "properties/expected_verdicts.h"

namespace stackcheck::hardware {
namespace {

// One cell's result; a policy's also carries its paired figures.
struct Cell {
  BenchFigure figure;
  double ratio = 0;           // median of policy / launch only
  double launch_only_us = 0;  // median launch only
};
using Measure = std::function<absl::StatusOr<Cell>()>;

// Runs `measure` on its own thread; nullopt when it does not end within
// `watchdog`, the thread left blocked (detached: it owns what it uses).
std::optional<absl::StatusOr<Cell>> Guarded(Measure measure, absl::Duration watchdog) {
  auto done = std::make_shared<absl::Notification>();
  auto result = std::make_shared<absl::StatusOr<Cell>>(absl::UnknownError("not run"));
  std::thread worker([done, result, measure = std::move(measure)] {
    *result = measure();
    done->Notify();
  });
  if (!done->WaitForNotificationWithTimeout(watchdog)) {
    worker.detach();
    return std::nullopt;
  }
  worker.join();
  return *result;
}

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

}  // namespace

LaunchTable MeasureLaunchTableWith(LaunchMeasurer& measurer, const real::DeviceProperties& device,
                                   std::uint32_t occupancy_teams, const LaunchTableSpec& spec) {
  LaunchTable t;
  t.device = device;
  t.occupancy_teams = occupancy_teams;
  t.options = spec.options;
  // libgomp's default on an H200 is 132 SMs x 4 = 528 teams (the reference
  // figures' geometry); the occupancy API alone would allow more.
  const std::uint32_t teams = static_cast<std::uint32_t>(device.sm_count * 4);
  const std::string long_kernel = absl::StrCat(spec.long_kernel_us, "us");
  const std::uint64_t long_ns = static_cast<std::uint64_t>(spec.long_kernel_us) * 1000;
  for (std::uint32_t g : {8u, teams}) {
    for (bool is_long : {false, true}) {
      LaunchColumn c;
      c.geometry = {g, 8};
      c.kernel_ns = is_long ? long_ns : 0;
      c.kernel = is_long ? long_kernel : "tiny";
      c.label = absl::StrCat(c.geometry.Label(), " ", c.kernel);
      t.columns.push_back(std::move(c));
    }
  }
  // One row; false when the measurement stops there.
  auto row = [&](LaunchRow r, const std::function<Measure(const LaunchColumn&)>& measure) {
    t.rows.push_back(std::move(r));
    LaunchRow& current = t.rows.back();
    for (const LaunchColumn& c : t.columns) {
      std::optional<absl::StatusOr<Cell>> cell = Guarded(measure(c), spec.watchdog);
      if (!cell.has_value()) {
        t.end = LaunchTable::End::kHung;
        return false;
      }
      if (!cell->ok()) {
        t.end = LaunchTable::End::kFailed;
        t.failure = std::string(cell->status().message());
        return false;
      }
      current.cells.push_back((*cell)->figure);
      if (!current.policy.empty()) {
        current.ratio.push_back((*cell)->ratio);
        current.launch_only_us.push_back((*cell)->launch_only_us);
      }
    }
    if (spec.progress) {
      std::string line = absl::StrCat("measured ", current.what, ":");
      for (const BenchFigure& f : current.cells) {
        absl::StrAppendFormat(&line, " %.2f", f.us_per_launch);
      }
      spec.progress(absl::StrCat(line, " us"));
    }
    return true;
  };
  LaunchMeasurer* m = &measurer;
  const BenchOptions options = spec.options;
  for (Floor floor : kAllFloors) {
    const bool go_on =
        row({std::string(FloorName(floor)), "", {}, {}, {}}, [=](const LaunchColumn& c) -> Measure {
          return [=]() -> absl::StatusOr<Cell> {
            absl::StatusOr<BenchFigure> f =
                m->MeasureFloor(floor, c.geometry, c.kernel_ns, options);
            if (!f.ok()) return f.status();
            return Cell{*f, 0, 0};
          };
        });
    if (!go_on) return t;
  }
  const std::vector<const PolicyInfo*> policies =
      spec.policies.empty() ? DefaultOrder() : spec.policies;
  for (size_t k = 0; k < policies.size(); ++k) {
    const PolicyInfo* p = policies[k];
    const bool go_on = row({absl::StrCat("policy ", p->name), p->name, {}, {}, {}},
                           [=](const LaunchColumn& c) -> Measure {
                             return [=] { return PairedPolicyCell(*m, *p, c, options); };
                           });
    if (!go_on) {
      if (t.end == LaunchTable::End::kHung) {
        for (size_t later = k + 1; later < policies.size(); ++later) {
          t.not_measured.push_back(policies[later]->name);
        }
      }
      return t;
    }
  }
  return t;
}

absl::StatusOr<LaunchTable> MeasureLaunchTable(const LaunchTableSpec& spec) {
  absl::StatusOr<std::unique_ptr<LaunchBench>> bench = LaunchBench::Open();
  if (!bench.ok()) return bench.status();
  absl::StatusOr<std::uint32_t> occupancy = (*bench)->DefaultTeams(8);
  if (!occupancy.ok()) return occupancy.status();
  LaunchTable t = MeasureLaunchTableWith(**bench, (*bench)->properties(), *occupancy, spec);
  // A thread blocked in the driver still uses the bench: never destroyed.
  if (t.end == LaunchTable::End::kHung) bench->release();
  return t;
}

}  // namespace stackcheck::hardware
