// `stackcheck bench launch --backend=cuda`: microseconds per OpenMP-shaped
// kernel launch on the GPU, for every stack-cache policy and for the raw
// floors the driver allows, at 8x8 and at the default-occupancy geometry,
// with a tiny and a ~50 us kernel. Each row also prints as a
// `launch_us <geometry> <kernel> <what> <us>` line for scripts.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli/command.h"
#include "core/policies/registry.h"
#include "real/launch_bench.h"

ABSL_DECLARE_FLAG(std::string, backend);  // cli/cmd_validate.cc
ABSL_FLAG(int, bench_launches, 1000, "bench launch: launches per repetition (at most)");
ABSL_FLAG(int, bench_repetitions, 5, "bench launch: repetitions; the median is reported");
ABSL_FLAG(std::string, bench_policies, "",
          "bench launch: comma-separated policies (default: all)");
ABSL_FLAG(int, bench_long_kernel_us, 50, "bench launch: the long kernel's duration");

namespace stackcheck::cli {
namespace {

struct Column {
  real::BenchGeometry geometry;
  std::uint64_t kernel_ns;
  std::string label;
};

int RunBenchLaunch(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("bench launch takes no arguments");
  if (absl::GetFlag(FLAGS_backend) != "cuda") {
    return UsageError("bench launch measures the GPU: --backend=cuda");
  }
  std::vector<const PolicyInfo*> policies;
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_bench_policies), ',', absl::SkipEmpty())) {
    const PolicyInfo* p = FindPolicy(name);
    if (p == nullptr) return UsageError(absl::StrFormat("unknown policy '%s'", name));
    policies.push_back(p);
  }
  if (policies.empty()) {
    for (const PolicyInfo& p : AllPolicies()) policies.push_back(&p);
  }
  real::BenchOptions options;
  options.launches = absl::GetFlag(FLAGS_bench_launches);
  options.repetitions = absl::GetFlag(FLAGS_bench_repetitions);
  const int long_us = absl::GetFlag(FLAGS_bench_long_kernel_us);
  if (options.launches < 1 || options.repetitions < 1 || long_us < 1) {
    return UsageError("bench launch: launches, repetitions and kernel time must be >= 1");
  }
  options.min_launches = std::min(options.min_launches, options.launches);

  absl::StatusOr<std::unique_ptr<real::LaunchBench>> bench = real::LaunchBench::Open();
  if (!bench.ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", bench.status().message());
    return kExitMismatch;
  }
  const real::DeviceProperties& props = (*bench)->properties();
  absl::StatusOr<std::uint32_t> occupancy = (*bench)->DefaultTeams(8);
  if (!occupancy.ok()) {
    absl::FPrintF(stderr, "stackcheck: %s\n", occupancy.status().message());
    return kExitMismatch;
  }
  // libgomp's default on an H200 is 132 SMs x 4 = 528 teams (the reference
  // figures' geometry); the occupancy API alone would allow more.
  const std::uint32_t teams = static_cast<std::uint32_t>(props.sm_count * 4);
  absl::PrintF("stackcheck bench launch: %s, %d SMs, compute %d.%d, driver %d\n",
               props.name, props.sm_count, props.cc_major, props.cc_minor,
               props.driver_version);
  absl::PrintF("default geometry: %d teams x 8 warps (%d SMs x 4, libgomp's default; the "
               "occupancy API allows %d resident blocks), 128 KiB stack per warp\n",
               teams, props.sm_count, *occupancy);
  absl::PrintF("us per launch: median of %d repetitions of up to %d back-to-back launches "
               "(a repetition stops after 400 ms), one cuCtxSynchronize per repetition\n\n",
               options.repetitions, options.launches);

  const std::vector<Column> columns = {
      {{8, 8}, 0, "8x8 tiny"},
      {{8, 8}, static_cast<std::uint64_t>(long_us) * 1000, absl::StrCat("8x8 ", long_us, "us")},
      {{teams, 8}, 0, absl::StrCat(teams, "x8 tiny")},
      {{teams, 8}, static_cast<std::uint64_t>(long_us) * 1000,
       absl::StrCat(teams, "x8 ", long_us, "us")},
  };
  absl::PrintF("%-34s", "");
  for (const Column& c : columns) absl::PrintF("%14s", c.label);
  absl::PrintF("\n");

  std::vector<std::string> script_lines;
  auto print_row = [&](const std::string& what, auto measure) -> bool {
    absl::PrintF("%-34s", what);
    std::fflush(stdout);
    for (size_t i = 0; i < columns.size(); ++i) {
      absl::StatusOr<real::BenchFigure> f = measure(columns[i]);
      if (!f.ok()) {
        absl::PrintF("\n");
        absl::FPrintF(stderr, "stackcheck: %s: %s\n", what, f.status().message());
        return false;
      }
      absl::PrintF("%14.1f", f->us_per_launch);
      std::fflush(stdout);
      script_lines.push_back(absl::StrFormat(
          "launch_us %s %s %s %.2f", columns[i].geometry.Label(),
          columns[i].kernel_ns == 0 ? "tiny" : absl::StrCat(long_us, "us"),
          absl::StrReplaceAll(what, {{" ", "_"}}), f->us_per_launch));
    }
    absl::PrintF("\n");
    return true;
  };
  for (real::Floor floor : real::kAllFloors) {
    if (!print_row(std::string(real::FloorName(floor)), [&](const Column& c) {
          return (*bench)->MeasureFloor(floor, c.geometry, c.kernel_ns, options);
        })) {
      return kExitMismatch;
    }
  }
  // The floors' launch-only row was measured minutes earlier, on a colder
  // driver and GPU, and launch-only itself drifts by +-25% within minutes on
  // the H200. So each policy is compared pairwise: every repetition of the
  // policy runs right after one repetition of launch-only, and the cost is
  // the median of those paired ratios.
  struct PolicyRow {
    std::string name;
    std::vector<double> ratio, launch_only;  // per column: medians
  };
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  real::BenchOptions one = options;
  one.repetitions = 1;
  std::vector<PolicyRow> policy_rows;
  for (const PolicyInfo* p : policies) {
    PolicyRow row{p->name, {}, {}};
    if (!print_row(absl::StrCat("policy ", p->name),
                   [&](const Column& c) -> absl::StatusOr<real::BenchFigure> {
          std::vector<double> policy_us, launch_only_us, ratios;
          real::BenchFigure figure;
          for (int rep = 0; rep < options.repetitions; ++rep) {
            absl::StatusOr<real::BenchFigure> floor = (*bench)->MeasureFloor(
                real::Floor::kLaunchOnly, c.geometry, c.kernel_ns, one);
            if (!floor.ok()) return floor.status();
            absl::StatusOr<real::BenchFigure> f =
                (*bench)->MeasurePolicy(*p, c.geometry, c.kernel_ns, one);
            if (!f.ok()) return f.status();
            policy_us.push_back(f->us_per_launch);
            launch_only_us.push_back(floor->us_per_launch);
            ratios.push_back(f->us_per_launch / floor->us_per_launch);
            figure.launches = f->launches;
          }
          figure.us_per_launch = median(policy_us);
          figure.us_min = *std::min_element(policy_us.begin(), policy_us.end());
          row.ratio.push_back(median(ratios));
          row.launch_only.push_back(median(launch_only_us));
          return figure;
        })) {
      return kExitMismatch;
    }
    policy_rows.push_back(std::move(row));
  }
  absl::PrintF("\npolicy cost over launch only (paired: each repetition right after one "
               "of launch only; median of the %d ratios, median launch-only in brackets):\n",
               options.repetitions);
  for (const PolicyRow& row : policy_rows) {
    absl::PrintF("  %-32s", row.name);
    for (size_t i = 0; i < row.ratio.size(); ++i) {
      absl::PrintF("%+8.0f%% (%4.1f)", 100.0 * (row.ratio[i] - 1), row.launch_only[i]);
      script_lines.push_back(absl::StrFormat(
          "policy_over_launch_only %s %s %s %+.1f%%", columns[i].geometry.Label(),
          columns[i].kernel_ns == 0 ? "tiny" : absl::StrCat(long_us, "us"),
          row.name, 100.0 * (row.ratio[i] - 1)));
    }
    absl::PrintF("\n");
  }
  absl::PrintF("\n");
  for (const std::string& line : script_lines) absl::PrintF("%s\n", line);
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"bench launch",
     "bench launch --backend=cuda [--bench_launches=N] [--bench_policies=P,...]",
     "us per launch on the GPU: every policy and the driver's floors", &RunBenchLaunch});

}  // namespace
}  // namespace stackcheck::cli
