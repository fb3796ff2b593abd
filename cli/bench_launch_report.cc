#include "cli/bench_launch_report.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace stackcheck::cli {
namespace {

using hardware::LaunchColumn;
using hardware::LaunchRow;
using hardware::LaunchTable;

// The table for people: one row per floor or policy, one column per geometry
// and kernel; a hung cell says so.
std::vector<std::string> TableLines(const LaunchTable& t) {
  std::vector<std::string> lines;
  std::string header = absl::StrFormat("%-34s", "");
  for (const LaunchColumn& c : t.columns) absl::StrAppendFormat(&header, "%14s", c.label);
  lines.push_back(header);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::string line = absl::StrFormat("%-34s", t.rows[r].what);
    for (const hardware::BenchFigure& f : t.rows[r].cells) {
      absl::StrAppendFormat(&line, "%14.1f", f.us_per_launch);
    }
    if (t.rows[r].end != LaunchRow::End::kComplete) {
      absl::StrAppendFormat(&line, "%14s",
                            t.rows[r].end == LaunchRow::End::kHung ? "hung" : "failed");
    }
    lines.push_back(line);
  }
  return lines;
}

// Policy rows measured in every column.
std::vector<const LaunchRow*> PairedRows(const LaunchTable& t) {
  std::vector<const LaunchRow*> rows;
  for (const LaunchRow& row : t.rows) {
    if (!row.policy.empty() && row.ratio.size() == t.columns.size()) rows.push_back(&row);
  }
  return rows;
}

double Percent(double ratio) { return 100.0 * (ratio - 1); }

// The device, the default geometry and how each figure was measured.
void DescribeSetup(const LaunchTable& t, ReportSink& out) {
  const real::DeviceProperties& d = t.device;
  out.Custom("device",
             absl::StrFormat("stackcheck bench launch: %s, %d SMs, compute %d.%d, driver %d",
                             d.name, d.sm_count, d.cc_major, d.cc_minor, d.driver_version),
             [&d](properties::JsonWriter& j) {
               j.BeginObject();
               j.Key("name").String(d.name);
               j.Key("sm_count").Int(d.sm_count);
               j.Key("driver_version").Int(d.driver_version);
               j.EndObject();
             });
  out.Note(
      absl::StrFormat("default geometry: %d teams x 8 warps (%d SMs x 4, libgomp's default; the "
                      "occupancy API allows %d resident blocks), 128 KiB stack per warp",
                      d.sm_count * 4, d.sm_count, t.occupancy_teams));
  out.Fields(absl::StrFormat("us per launch: median of %d repetitions of up to %d back-to-back "
                             "launches (a repetition stops after 400 ms), one cuCtxSynchronize "
                             "per repetition",
                             t.options.repetitions, t.options.launches),
             [&t](properties::JsonWriter& j) {
               j.Key("repetitions").Int(t.options.repetitions);
               j.Key("launches").Int(t.options.launches);
             });
}

// Text only: each paired row's cost per column, with its launch-only median.
void NotePairedCosts(const LaunchTable& t, const std::vector<const LaunchRow*>& paired,
                     ReportSink& out) {
  if (paired.empty()) return;
  out.Note("");
  out.Note(absl::StrFormat(
      "policy cost over launch only (paired: each repetition right after one of launch "
      "only; median of the %d ratios, median launch-only in brackets):",
      t.options.repetitions));
  for (const LaunchRow* row : paired) {
    std::string line = absl::StrFormat("  %-32s", row->policy);
    for (size_t i = 0; i < row->ratio.size(); ++i) {
      absl::StrAppendFormat(&line, "%+8.0f%% (%4.1f)", Percent(row->ratio[i]),
                            row->launch_only_us[i]);
    }
    out.Note(line);
  }
}

// The lines for scripts: each row's cells, then its paired costs, one line each.
std::vector<std::string> ScriptLines(const LaunchTable& t) {
  std::vector<std::string> script;
  for (const LaunchRow& row : t.rows) {
    for (size_t i = 0; i < row.cells.size(); ++i) {
      const LaunchColumn& c = t.columns[i];
      script.push_back(absl::StrFormat("launch_us %s %s %s %.2f", c.geometry.Label(), c.kernel,
                                       absl::StrReplaceAll(row.what, {{" ", "_"}}),
                                       row.cells[i].us_per_launch));
    }
    if (row.policy.empty() || row.ratio.size() != t.columns.size()) continue;
    for (size_t i = 0; i < row.ratio.size(); ++i) {
      const LaunchColumn& c = t.columns[i];
      script.push_back(absl::StrFormat("policy_over_launch_only %s %s %s %+.1f%%",
                                       c.geometry.Label(), c.kernel, row.policy,
                                       Percent(row.ratio[i])));
    }
  }
  return script;
}

void WriteCellsJson(const LaunchTable& t, properties::JsonWriter& j) {
  j.Key("cells").BeginArray();
  for (const LaunchRow& row : t.rows) {
    for (size_t i = 0; i < row.cells.size(); ++i) {
      const hardware::BenchFigure& f = row.cells[i];
      j.BeginObject();
      j.Key("row").String(row.what);
      j.Key("geometry").String(t.columns[i].geometry.Label());
      j.Key("kernel_ns").Uint(t.columns[i].kernel_ns);
      j.Key("us_per_launch").Double(f.us_per_launch);
      j.Key("us_min").Double(f.us_min);
      j.Key("launches").Int(f.launches);
      j.EndObject();
    }
  }
  j.EndArray();
}

void WritePairedCostsJson(const LaunchTable& t, const std::vector<const LaunchRow*>& paired,
                          properties::JsonWriter& j) {
  j.Key("policy_over_launch_only").BeginArray();
  for (const LaunchRow* row : paired) {
    for (size_t i = 0; i < row->ratio.size(); ++i) {
      j.BeginObject();
      j.Key("policy").String(row->policy);
      j.Key("geometry").String(t.columns[i].geometry.Label());
      j.Key("kernel_ns").Uint(t.columns[i].kernel_ns);
      j.Key("percent").Double(Percent(row->ratio[i]));
      j.Key("launch_only_us").Double(row->launch_only_us[i]);
      j.EndObject();
    }
  }
  j.EndArray();
}

// JSON only: the text table already says which rows hung or failed.
void WriteUnfinished(const LaunchTable& t, ReportSink& out) {
  const std::vector<const LaunchRow*> unfinished = t.Unfinished();
  if (unfinished.empty()) return;
  out.Fields("", [&](properties::JsonWriter& j) {
    j.Key("unfinished").BeginArray();
    for (const LaunchRow* row : unfinished) {
      j.BeginObject();
      j.Key("row").String(row->what);
      j.Key("column").String(t.columns[row->cells.size()].label);
      j.Key("end").String(row->end == LaunchRow::End::kHung ? "hung" : "failed");
      if (row->end == LaunchRow::End::kFailed) j.Key("error").String(row->failure);
      j.EndObject();
    }
    j.EndArray();
  });
}

}  // namespace

void DescribeLaunchTable(const LaunchTable& t, ReportSink& out) {
  DescribeSetup(t, out);
  out.Note("");
  for (const std::string& line : TableLines(t)) out.Note(line);
  const std::vector<const LaunchRow*> paired = PairedRows(t);
  NotePairedCosts(t, paired, out);
  out.Note("");
  out.Fields(absl::StrJoin(ScriptLines(t), "\n"), [&](properties::JsonWriter& j) {
    WriteCellsJson(t, j);
    WritePairedCostsJson(t, paired, j);
  });
  WriteUnfinished(t, out);
}

}  // namespace stackcheck::cli
