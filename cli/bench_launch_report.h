// `bench launch`'s report, described once for text and JSON (ReportSink).
// Text: the device, the table of us per launch, the policies' paired costs,
// then one `launch_us GEOMETRY KERNEL ROW US` line per cell and one
// `policy_over_launch_only GEOMETRY KERNEL POLICY +P%` line per paired cost
// (the lines docs/make_figures.py reads). JSON: "device", "repetitions",
// "launches", "cells", "policy_over_launch_only", and where the measurement
// stopped early "hung" with "not_measured", or "error".
#ifndef STACKCHECK_CLI_BENCH_LAUNCH_REPORT_H_
#define STACKCHECK_CLI_BENCH_LAUNCH_REPORT_H_

#include "cli/report_sink.h"
#include "hardware/launch_table.h"

namespace stackcheck::cli {

void DescribeLaunchTable(const hardware::LaunchTable& table, ReportSink& out);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_BENCH_LAUNCH_REPORT_H_
