// `stackcheck bench launch --backend=cuda`: microseconds per OpenMP-shaped
// kernel launch on the GPU, for every stack-cache policy and for the raw
// floors the driver allows, at 8x8 and at the default-occupancy geometry,
// with a tiny and a ~50 us kernel. Each row also prints as a
// `launch_us <geometry> <kernel> <what> <us>` line for scripts; --json prints
// one JSON object with every cell and paired cost instead.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "core/policies/registry.h"
#include "hardware/launch_bench.h"
#include "properties/expected_verdicts.h"
#include "properties/json_writer.h"

ABSL_DECLARE_FLAG(std::string, backend);  // cli/cmd_validate.cc
ABSL_FLAG(int, bench_launches, 1000, "bench launch: launches per repetition (at most)");
ABSL_FLAG(int, bench_repetitions, 5, "bench launch: repetitions; the median is reported");
ABSL_FLAG(std::string, bench_policies, "",
          "bench launch: comma-separated policies (default: all)");
ABSL_FLAG(int, bench_long_kernel_us, 50, "bench launch: the long kernel's duration");
ABSL_FLAG(int, bench_mapped_vars, 0,
          "bench launch: variables each policy region maps (0-8): allocation and "
          "copies in and back around every region, as libgomp maps a target region");
ABSL_FLAG(int, bench_watchdog_s, 60,
          "bench launch: a cell that takes longer is reported as hung (1-3600)");

namespace stackcheck::cli {
namespace {

struct Column {
  hardware::BenchGeometry geometry;
  std::uint64_t kernel_ns;
  std::string label;
};

// absl::PrintF when `on` (the text output; --json prints one object instead).
template <typename... Args>
void Say(bool on, const absl::FormatSpec<Args...>& format, const Args&... args) {
  if (on) absl::PrintF(format, args...);
}

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
    // Policies that can deadlock go last: a hang ends the benchmark (the
    // context is unusable with a thread stuck in the driver), and the
    // others should be measured by then. V1b does hang here (hardware/VALIDATION.md).
    std::vector<const PolicyInfo*> may_hang;
    for (const PolicyInfo& p : AllPolicies()) {
      const bool deadlocks = properties::ExpectedVerdict(p.name, "no-deadlock") !=
                             properties::Expectation::kHolds;
      (deadlocks ? may_hang : policies).push_back(&p);
    }
    policies.insert(policies.end(), may_hang.begin(), may_hang.end());
  }
  const int watchdog_s = absl::GetFlag(FLAGS_bench_watchdog_s);
  if (watchdog_s < 1 || watchdog_s > 3600) {
    return UsageError("bench launch: --bench_watchdog_s must be 1-3600");
  }
  hardware::BenchOptions options;
  options.launches = absl::GetFlag(FLAGS_bench_launches);
  options.mapped_vars = absl::GetFlag(FLAGS_bench_mapped_vars);
  if (options.mapped_vars < 0 || options.mapped_vars > 8) {
    return UsageError(absl::StrFormat("--bench_mapped_vars must be 0..8, not %d",
                                      options.mapped_vars));
  }
  options.repetitions = absl::GetFlag(FLAGS_bench_repetitions);
  const int long_us = absl::GetFlag(FLAGS_bench_long_kernel_us);
  if (options.launches < 1 || options.repetitions < 1 || long_us < 1) {
    return UsageError("bench launch: launches, repetitions and kernel time must be >= 1");
  }
  options.min_launches = std::min(options.min_launches, options.launches);

  const bool text = !absl::GetFlag(FLAGS_json);
  // --json: the same figures, as one object printed at the end (or at a hang).
  properties::JsonWriter json;
  json.BeginObject();
  json.Key("command").String("bench launch");
  json.Key("cells").BeginArray();  // closed by print_results
  struct Cost {  // one policy_over_launch_only figure
    std::string policy, geometry;
    std::uint64_t kernel_ns;
    double percent, launch_only_us;
  };
  std::vector<Cost> costs;

  absl::StatusOr<std::unique_ptr<hardware::LaunchBench>> bench = hardware::LaunchBench::Open();
  if (!bench.ok()) return RunError(bench.status().message());
  const real::DeviceProperties& props = (*bench)->properties();
  absl::StatusOr<std::uint32_t> occupancy = (*bench)->DefaultTeams(8);
  if (!occupancy.ok()) return RunError(occupancy.status().message());
  // libgomp's default on an H200 is 132 SMs x 4 = 528 teams (the reference
  // figures' geometry); the occupancy API alone would allow more.
  const std::uint32_t teams = static_cast<std::uint32_t>(props.sm_count * 4);
  Say(text, "stackcheck bench launch: %s, %d SMs, compute %d.%d, driver %d\n",
      props.name, props.sm_count, props.cc_major, props.cc_minor,
      props.driver_version);
  Say(text, "default geometry: %d teams x 8 warps (%d SMs x 4, libgomp's default; the "
      "occupancy API allows %d resident blocks), 128 KiB stack per warp\n",
      teams, props.sm_count, *occupancy);
  Say(text, "us per launch: median of %d repetitions of up to %d back-to-back launches "
      "(a repetition stops after 400 ms), one cuCtxSynchronize per repetition\n\n",
      options.repetitions, options.launches);

  const std::vector<Column> columns = {
      {{8, 8}, 0, "8x8 tiny"},
      {{8, 8}, static_cast<std::uint64_t>(long_us) * 1000, absl::StrCat("8x8 ", long_us, "us")},
      {{teams, 8}, 0, absl::StrCat(teams, "x8 tiny")},
      {{teams, 8}, static_cast<std::uint64_t>(long_us) * 1000,
       absl::StrCat(teams, "x8 ", long_us, "us")},
  };
  Say(text, "%-34s", "");
  for (const Column& c : columns) Say(text, "%14s", c.label);
  Say(text, "\n");

  std::vector<std::string> script_lines;
  std::vector<std::string> summary;  // printed at the end, or before a hang
  std::string not_measured;          // policies after the current one
  // Ends the output: the summary and script lines, or the JSON object
  // (`hung`: the row and column that hung, if any).
  auto print_results = [&](const std::string& hung_what = "",
                                const std::string& hung_column = "") {
    if (!text) {
      json.EndArray();
      json.Key("device").BeginObject();
      json.Key("name").String(props.name);
      json.Key("sm_count").Int(props.sm_count);
      json.Key("driver_version").Int(props.driver_version);
      json.EndObject();
      json.Key("repetitions").Int(options.repetitions);
      json.Key("launches").Int(options.launches);
      json.Key("policy_over_launch_only").BeginArray();
      for (const Cost& c : costs) {
        json.BeginObject();
        json.Key("policy").String(c.policy);
        json.Key("geometry").String(c.geometry);
        json.Key("kernel_ns").Uint(c.kernel_ns);
        json.Key("percent").Double(c.percent);
        json.Key("launch_only_us").Double(c.launch_only_us);
        json.EndObject();
      }
      json.EndArray();
      if (!hung_what.empty()) {
        json.Key("hung").BeginObject();
        json.Key("row").String(hung_what);
        json.Key("column").String(hung_column);
        json.EndObject();
        json.Key("not_measured").String(absl::StripLeadingAsciiWhitespace(not_measured));
      }
      PrintJsonResult(json, hung_what.empty() ? kExitOk : kExitMismatch);
    }
    for (const std::string& line : summary) Say(text, "%s", line);
    Say(text, "\n");
    for (const std::string& line : script_lines) Say(text, "%s\n", line);
    std::fflush(stdout);
  };
  // Runs one cell under the watchdog. A hung cell leaves a thread blocked in
  // the driver for good, so the benchmark prints what it has and ends the
  // process at once (destructors would wait on that thread or the driver).
  auto guarded = [&](const std::string& what, auto measure, const Column& c) {
    auto done = std::make_shared<absl::Notification>();
    auto result = std::make_shared<absl::StatusOr<hardware::BenchFigure>>(
        absl::UnknownError("not run"));
    std::thread worker([=, &measure] {
      *result = measure(c);
      done->Notify();
    });
    if (!done->WaitForNotificationWithTimeout(absl::Seconds(watchdog_s))) {
      worker.detach();
      Say(text, "%14s\n", "hung");
      std::fflush(stdout);  // before the message on stderr
      absl::FPrintF(stderr,
                    "stackcheck: bench launch: %s at %s did not finish in %d s "
                    "(--bench_watchdog_s): a hang; the context is unusable, so the "
                    "benchmark stops here\n",
                    what, c.label, watchdog_s);
      if (!not_measured.empty()) {
        absl::FPrintF(stderr,
                      "stackcheck: not measured:%s (measure each alone with "
                      "--bench_policies)\n",
                      not_measured);
      }
      print_results(what, c.label);
      std::_Exit(kExitMismatch);
    }
    worker.join();
    return *result;
  };
  auto print_row = [&](const std::string& what, auto measure) -> bool {
    Say(text, "%-34s", what);
    std::fflush(stdout);
    for (size_t i = 0; i < columns.size(); ++i) {
      absl::StatusOr<hardware::BenchFigure> f = guarded(what, measure, columns[i]);
      if (!f.ok()) {
        Say(text, "\n");
        absl::FPrintF(stderr, "stackcheck: %s: %s\n", what, f.status().message());
        return false;
      }
      Say(text, "%14.1f", f->us_per_launch);
      std::fflush(stdout);
      json.BeginObject();
      json.Key("row").String(what);
      json.Key("geometry").String(columns[i].geometry.Label());
      json.Key("kernel_ns").Uint(columns[i].kernel_ns);
      json.Key("us_per_launch").Double(f->us_per_launch);
      json.Key("us_min").Double(f->us_min);
      json.Key("launches").Int(f->launches);
      json.EndObject();
      script_lines.push_back(absl::StrFormat(
          "launch_us %s %s %s %.2f", columns[i].geometry.Label(),
          columns[i].kernel_ns == 0 ? "tiny" : absl::StrCat(long_us, "us"),
          absl::StrReplaceAll(what, {{" ", "_"}}), f->us_per_launch));
    }
    Say(text, "\n");
    return true;
  };
  for (hardware::Floor floor : hardware::kAllFloors) {
    if (!print_row(std::string(hardware::FloorName(floor)), [&](const Column& c) {
          return (*bench)->MeasureFloor(floor, c.geometry, c.kernel_ns, options);
        })) {
      return kExitMismatch;
    }
  }
  // The floors' launch-only row was measured minutes earlier, on a colder
  // driver and GPU, and launch-only itself drifts within minutes. So each
  // policy is compared pairwise: every repetition of the
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
  hardware::BenchOptions one = options;
  one.repetitions = 1;
  for (size_t k = 0; k < policies.size(); ++k) {
    const PolicyInfo* p = policies[k];
    not_measured.clear();
    for (size_t later = k + 1; later < policies.size(); ++later) {
      absl::StrAppend(&not_measured, " ", policies[later]->name);
    }
    PolicyRow row{p->name, {}, {}};
    if (!print_row(absl::StrCat("policy ", p->name),
                   [&](const Column& c) -> absl::StatusOr<hardware::BenchFigure> {
          std::vector<double> policy_us, launch_only_us, ratios;
          hardware::BenchFigure figure;
          for (int rep = 0; rep < options.repetitions; ++rep) {
            absl::StatusOr<hardware::BenchFigure> floor = (*bench)->MeasureFloor(
                hardware::Floor::kLaunchOnly, c.geometry, c.kernel_ns, one);
            if (!floor.ok()) return floor.status();
            absl::StatusOr<hardware::BenchFigure> f =
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
    if (summary.empty()) {
      summary.push_back(absl::StrFormat(
          "\npolicy cost over launch only (paired: each repetition right after one "
          "of launch only; median of the %d ratios, median launch-only in brackets):\n",
          options.repetitions));
    }
    std::string line = absl::StrFormat("  %-32s", row.name);
    for (size_t i = 0; i < row.ratio.size(); ++i) {
      absl::StrAppendFormat(&line, "%+8.0f%% (%4.1f)", 100.0 * (row.ratio[i] - 1),
                            row.launch_only[i]);
      costs.push_back({row.name, columns[i].geometry.Label(), columns[i].kernel_ns,
                       100.0 * (row.ratio[i] - 1), row.launch_only[i]});
      script_lines.push_back(absl::StrFormat(
          "policy_over_launch_only %s %s %s %+.1f%%", columns[i].geometry.Label(),
          columns[i].kernel_ns == 0 ? "tiny" : absl::StrCat(long_us, "us"),
          row.name, 100.0 * (row.ratio[i] - 1)));
    }
    summary.push_back(line + "\n");
  }
  print_results();
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"bench launch",
     "bench launch --backend=cuda [--bench_launches=N] [--bench_policies=P,...] [--bench_mapped_vars=K]",
     "us per launch on the GPU: every policy and the driver's floors", &RunBenchLaunch});

}  // namespace
}  // namespace stackcheck::cli
