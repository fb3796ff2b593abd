// One description of a command's report, rendered either as text lines
// ("key value", the form scripts grep) or as one JSON object (--json).
// Commands describe each figure once:
//
//   ReportSink out(json);
//   out.Field("executions", n).Field("exhausted", done);
//   out.Group("plain_dfs");   // text: keys prefixed "plain_dfs_"; JSON: nested
//   ...
//   out.EndGroup();
//   return out.Finish(rc);    // JSON: adds exit_status, prints the object
//
// Text-only lines (a header, a note for people) go through Note(); a value
// whose text form is a sentence and whose JSON form is an object goes through
// Custom(), which takes both renderings side by side; a text line that
// carries several JSON fields goes through Fields(). A table is a list of
// rows: JSON an array of objects, text "KEY LABEL value" per figure, LABEL
// naming the row:
//
//   out.BeginRows("scenarios");
//   out.BeginRow("peer").Number("steps_per_s", rate, "%.0f").EndRow();
//   out.EndRows();
#ifndef STACKCHECK_CLI_REPORT_SINK_H_
#define STACKCHECK_CLI_REPORT_SINK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "properties/json_writer.h"

namespace stackcheck::cli {

class ReportSink {
 public:
  // JSON: the object starts with "command": `command` when one is given.
  explicit ReportSink(bool json, absl::string_view command = "");
  ReportSink(const ReportSink&) = delete;
  ReportSink& operator=(const ReportSink&) = delete;

  bool json() const { return json_; }

  ReportSink& Field(absl::string_view key, absl::string_view value);
  ReportSink& Field(absl::string_view key, const char* value) {
    return Field(key, absl::string_view(value));
  }
  ReportSink& Field(absl::string_view key, const std::string& value) {
    return Field(key, absl::string_view(value));
  }
  ReportSink& Field(absl::string_view key, std::uint64_t value);
  ReportSink& Field(absl::string_view key, std::int64_t value);
  ReportSink& Field(absl::string_view key, int value) {
    return Field(key, static_cast<std::int64_t>(value));
  }
  ReportSink& Field(absl::string_view key, bool value);  // text: yes / no
  // Text: `text_format` applied to the value ("%.2f"); JSON: the number.
  ReportSink& Seconds(absl::string_view key, double value);
  ReportSink& Ratio(absl::string_view key, double value, bool lower_bound);
  // Text: the value in `text_format`; JSON: the number.
  ReportSink& Number(absl::string_view key, double value,
                     const absl::FormatSpec<double>& text_format);
  // Text: "key a,b,c", nothing when empty; JSON: an array.
  ReportSink& List(absl::string_view key, const std::vector<std::string>& values);

  // Text only.
  ReportSink& Note(absl::string_view line);
  // Both renderings of one irregular value: `text` is printed as a line (with
  // the group prefix), `json` writes the value of `key`.
  ReportSink& Custom(absl::string_view key, absl::string_view text,
                     const std::function<void(properties::JsonWriter&)>& json);

  // Both renderings of lines that carry several values: `text` is printed
  // as it is, ending with a newline (nothing when empty); `json` writes keys
  // and values.
  ReportSink& Fields(absl::string_view text,
                     const std::function<void(properties::JsonWriter&)>& json);

  ReportSink& Group(absl::string_view name);
  ReportSink& EndGroup();

  // JSON: "key": [ ... ]; text: nothing of its own.
  ReportSink& BeginRows(absl::string_view key);
  ReportSink& EndRows();
  // JSON: one object of the array; text: each field's line reads
  // "<text_prefix>KEY LABEL value". Rows do not nest.
  ReportSink& BeginRow(absl::string_view label, absl::string_view text_prefix = "");
  ReportSink& EndRow();

  // JSON: adds "exit_status", prints the object. Returns rc.
  int Finish(int rc);

 private:
  std::string TextKey(absl::string_view key) const;
  void Line(absl::string_view key, absl::string_view value);

  bool json_;
  properties::JsonWriter writer_;
  std::vector<std::string> prefixes_;
  std::string row_label_;  // text: the open row's label, empty outside rows
};

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_REPORT_SINK_H_
