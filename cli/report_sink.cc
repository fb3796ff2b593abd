#include "cli/report_sink.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/common_flags.h"

namespace stackcheck::cli {

ReportSink::ReportSink(bool json, absl::string_view command) : json_(json) {
  if (!json_) return;
  writer_.BeginObject();
  if (!command.empty()) writer_.Key("command").String(command);
}

std::string ReportSink::TextKey(absl::string_view key) const {
  return absl::StrCat(absl::StrJoin(prefixes_, ""), key);
}

void ReportSink::Line(absl::string_view key, absl::string_view value) {
  if (row_label_.empty()) {
    absl::PrintF("%s %s\n", TextKey(key), value);
  } else {
    absl::PrintF("%s %s %s\n", TextKey(key), row_label_, value);
  }
}

ReportSink& ReportSink::Field(absl::string_view key, absl::string_view value) {
  if (json_) {
    writer_.Key(key).String(value);
  } else {
    Line(key, value);
  }
  return *this;
}

ReportSink& ReportSink::Field(absl::string_view key, std::uint64_t value) {
  if (json_) {
    writer_.Key(key).Uint(value);
  } else {
    Line(key, absl::StrCat(value));
  }
  return *this;
}

ReportSink& ReportSink::Field(absl::string_view key, std::int64_t value) {
  if (json_) {
    writer_.Key(key).Int(value);
  } else {
    Line(key, absl::StrCat(value));
  }
  return *this;
}

ReportSink& ReportSink::Field(absl::string_view key, bool value) {
  if (json_) {
    writer_.Key(key).Bool(value);
  } else {
    Line(key, value ? "yes" : "no");
  }
  return *this;
}

ReportSink& ReportSink::Seconds(absl::string_view key, double value) {
  if (json_) {
    writer_.Key(key).Double(value);
  } else {
    Line(key, absl::StrFormat("%.2f", value));
  }
  return *this;
}

ReportSink& ReportSink::Ratio(absl::string_view key, double value, bool lower_bound) {
  if (json_) {
    writer_.Key(key).Double(value);
    writer_.Key(absl::StrCat(key, "_is_lower_bound")).Bool(lower_bound);
  } else {
    Line(key, absl::StrFormat("%s%.1f", lower_bound ? ">= " : "", value));
  }
  return *this;
}

ReportSink& ReportSink::Number(absl::string_view key, double value,
                               const absl::FormatSpec<double>& text_format) {
  if (json_) {
    writer_.Key(key).Double(value);
  } else {
    Line(key, absl::StrFormat(text_format, value));
  }
  return *this;
}

ReportSink& ReportSink::List(absl::string_view key, const std::vector<std::string>& values) {
  if (json_) {
    writer_.Key(key).BeginArray();
    for (const std::string& v : values) writer_.String(v);
    writer_.EndArray();
  } else if (!values.empty()) {
    Line(key, absl::StrJoin(values, ","));
  }
  return *this;
}

ReportSink& ReportSink::Note(absl::string_view line) {
  if (!json_) absl::PrintF("%s\n", line);
  return *this;
}

ReportSink& ReportSink::Custom(absl::string_view key, absl::string_view text,
                               const std::function<void(properties::JsonWriter&)>& json) {
  if (json_) {
    writer_.Key(key);
    json(writer_);
  } else {
    absl::PrintF("%s%s\n", absl::StrJoin(prefixes_, ""), text);
  }
  return *this;
}

ReportSink& ReportSink::Fields(absl::string_view text,
                               const std::function<void(properties::JsonWriter&)>& json) {
  if (json_) {
    json(writer_);
  } else if (!text.empty()) {
    absl::PrintF("%s%s", text, absl::EndsWith(text, "\n") ? "" : "\n");
  }
  return *this;
}

ReportSink& ReportSink::Group(absl::string_view name) {
  if (json_) {
    writer_.Key(name).BeginObject();
  } else {
    prefixes_.push_back(absl::StrCat(name, "_"));
  }
  return *this;
}

ReportSink& ReportSink::EndGroup() {
  if (json_) {
    writer_.EndObject();
  } else if (!prefixes_.empty()) {
    prefixes_.pop_back();
  }
  return *this;
}

ReportSink& ReportSink::BeginRows(absl::string_view key) {
  if (json_) writer_.Key(key).BeginArray();
  return *this;
}

ReportSink& ReportSink::EndRows() {
  if (json_) writer_.EndArray();
  return *this;
}

ReportSink& ReportSink::BeginRow(absl::string_view label, absl::string_view text_prefix) {
  if (json_) {
    writer_.BeginObject();
  } else {
    row_label_ = std::string(label);
    prefixes_.push_back(std::string(text_prefix));
  }
  return *this;
}

ReportSink& ReportSink::EndRow() {
  if (json_) {
    writer_.EndObject();
  } else if (!prefixes_.empty()) {
    row_label_.clear();
    prefixes_.pop_back();
  }
  return *this;
}

int ReportSink::Finish(int rc) { return json_ ? PrintJsonResult(writer_, rc) : rc; }

}  // namespace stackcheck::cli
