// `stackcheck bench launch --backend=cuda`: microseconds per OpenMP-shaped
// kernel launch on the GPU, for every stack-cache policy and for the raw
// floors the driver allows (hardware/launch_table.h), rendered as text or
// --json (cli/bench_launch_report.h). Each row is measured in a process of
// its own: a hang or a failure costs its row, and the exit status is 1, with
// a line on stderr naming each row that did not finish.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cli/bench_launch_report.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/report_sink.h"
#include "core/policies/registry.h"
#include "hardware/launch_table.h"

ABSL_DECLARE_FLAG(std::string, backend);  // cli/cmd_validate.cc
ABSL_FLAG(int, bench_launches, 1000, "bench launch: launches per repetition (at most)");
ABSL_FLAG(int, bench_repetitions, 5, "bench launch: repetitions; the median is reported");
ABSL_FLAG(std::string, bench_policies, "", "bench launch: comma-separated policies (default: all)");
ABSL_FLAG(int, bench_long_kernel_us, 50, "bench launch: the long kernel's duration");
ABSL_FLAG(int, bench_mapped_vars, 0,
          "bench launch: variables each policy region maps (0-8): allocation and "
          "copies in and back around every region, as libgomp maps a target region");
ABSL_FLAG(int, bench_watchdog_s, 60,
          "bench launch: a cell that takes longer is reported as hung (1-3600)");

namespace stackcheck::cli {
namespace {

// The measurement's spec from the flags; InvalidArgument says which is wrong.
absl::StatusOr<hardware::LaunchTableSpec> SpecFromFlags() {
  if (absl::GetFlag(FLAGS_backend) != "cuda") {
    return absl::InvalidArgumentError("bench launch measures the GPU: --backend=cuda");
  }
  hardware::LaunchTableSpec spec;
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_bench_policies), ',', absl::SkipEmpty())) {
    const PolicyInfo* p = FindPolicy(name);
    if (p == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("unknown policy '%s'", name));
    }
    spec.policies.push_back(p);
  }
  const int watchdog_s = absl::GetFlag(FLAGS_bench_watchdog_s);
  if (watchdog_s < 1 || watchdog_s > 3600) {
    return absl::InvalidArgumentError("bench launch: --bench_watchdog_s must be 1-3600");
  }
  spec.watchdog = absl::Seconds(watchdog_s);
  hardware::BenchOptions& options = spec.options;
  options.launches = absl::GetFlag(FLAGS_bench_launches);
  options.mapped_vars = absl::GetFlag(FLAGS_bench_mapped_vars);
  if (options.mapped_vars < 0 || options.mapped_vars > 8) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--bench_mapped_vars must be 0..8, not %d", options.mapped_vars));
  }
  options.repetitions = absl::GetFlag(FLAGS_bench_repetitions);
  spec.long_kernel_us = absl::GetFlag(FLAGS_bench_long_kernel_us);
  if (options.launches < 1 || options.repetitions < 1 || spec.long_kernel_us < 1) {
    return absl::InvalidArgumentError(
        "bench launch: launches, repetitions and kernel time must be >= 1");
  }
  options.min_launches = std::min(options.min_launches, options.launches);
  return spec;
}

int RunBenchLaunch(const std::vector<std::string>& args) {
  if (!args.empty()) return UsageError("bench launch takes no arguments");
  absl::StatusOr<hardware::LaunchTableSpec> spec = SpecFromFlags();
  if (!spec.ok()) return UsageError(spec.status().message());
  spec->progress = [](const std::string& line) {
    absl::FPrintF(stderr, "bench launch: %s\n", line);
  };
  absl::StatusOr<hardware::LaunchTable> table = hardware::MeasureLaunchTable(*spec);
  if (!table.ok()) return RunError(table.status().message());

  ReportSink out(absl::GetFlag(FLAGS_json), "bench launch");
  DescribeLaunchTable(*table, out);
  const std::vector<const hardware::LaunchRow*> unfinished = table->Unfinished();
  if (unfinished.empty()) return out.Finish(kExitOk);
  std::fflush(stdout);  // before the messages on stderr
  for (const hardware::LaunchRow* row : unfinished) {
    const std::string& column = table->columns[row->cells.size()].label;
    if (row->end == hardware::LaunchRow::End::kHung) {
      absl::FPrintF(stderr,
                    "stackcheck: bench launch: %s at %s did not finish in %d s "
                    "(--bench_watchdog_s): a hang; its process was killed, the other rows "
                    "were measured\n",
                    row->what, column, absl::GetFlag(FLAGS_bench_watchdog_s));
    } else {
      absl::FPrintF(stderr, "stackcheck: bench launch: %s at %s: %s\n", row->what, column,
                    row->failure);
    }
  }
  return out.Finish(kExitMismatch);
}

const bool registered = RegisterCommand(
    {"bench launch",
     "bench launch --backend=cuda [--bench_launches=N] [--bench_policies=P,...] "
     "[--bench_mapped_vars=K]",
     "us per launch on the GPU: every policy and the driver's floors", &RunBenchLaunch});

}  // namespace
}  // namespace stackcheck::cli
