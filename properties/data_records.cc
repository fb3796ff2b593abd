#include "properties/data_records.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace stackcheck::properties {
namespace {

bool Contains(const std::vector<absl::string_view>& keys, absl::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

absl::Status Bad(absl::string_view table, int line, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(table, ":", line, ": ", why));
}

// Each required and repeated field present, none twice but a repeated one.
absl::Status CheckFields(absl::string_view table, const DataRecord& r, const RecordSchema& schema) {
  for (absl::string_view key : schema.required) {
    const auto n = std::count_if(r.fields.begin(), r.fields.end(),
                                 [&](const auto& f) { return f.first == key; });
    if (n != 1) {
      return Bad(table, r.line,
                 absl::StrCat("the ", schema.kind, " record ", n == 0 ? "lacks" : "repeats",
                              " its '", key, "' line"));
    }
  }
  for (absl::string_view key : schema.repeated) {
    if (r.Get(key).empty()) {
      return Bad(table, r.line, absl::StrCat("the ", schema.kind, " record lacks '", key, "'"));
    }
  }
  for (absl::string_view key : schema.optional) {
    const auto n = std::count_if(r.fields.begin(), r.fields.end(),
                                 [&](const auto& f) { return f.first == key; });
    if (n > 1) return Bad(table, r.line, absl::StrCat("'", key, "' given twice"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view DataRecord::First(absl::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return v;
  }
  return {};
}

std::string DataRecord::Get(absl::string_view key) const {
  std::string value;
  for (const auto& [k, v] : fields) {
    if (k != key) continue;
    if (!value.empty()) value += ' ';
    value += v;
  }
  return value;
}

absl::StatusOr<std::vector<DataRecord>> ParseRecords(absl::string_view table,
                                                     absl::string_view text,
                                                     const RecordSchema& schema) {
  std::vector<DataRecord> records;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits(' ', 1));
    const absl::string_view key = kv.first, value = kv.second;
    if (value.empty() || value != absl::StripAsciiWhitespace(value) ||
        line != absl::StripTrailingAsciiWhitespace(line)) {
      return Bad(table, number, "a line is 'key value', with no space around the value");
    }
    if (key == schema.kind) {
      if (!records.empty()) {
        if (absl::Status s = CheckFields(table, records.back(), schema); !s.ok()) return s;
      }
      records.push_back(DataRecord{number, std::string(value), {}});
      continue;
    }
    if (records.empty()) {
      return Bad(table, number, absl::StrCat("a field before the first '", schema.kind, "'"));
    }
    if (!Contains(schema.required, key) && !Contains(schema.optional, key) &&
        !Contains(schema.repeated, key)) {
      return Bad(table, number, absl::StrCat("unknown field '", key, "'"));
    }
    records.back().fields.emplace_back(std::string(key), std::string(value));
  }
  if (!records.empty()) {
    if (absl::Status s = CheckFields(table, records.back(), schema); !s.ok()) return s;
  }
  return records;
}

std::vector<DataRecord> CompiledInRecords(absl::string_view table, absl::string_view text,
                                          const RecordSchema& schema) {
  absl::StatusOr<std::vector<DataRecord>> records = ParseRecords(table, text, schema);
  if (!records.ok()) {
    std::fprintf(stderr, "stackcheck: the compiled-in table is malformed: %s\n",
                 std::string(records.status().message()).c_str());
    std::abort();
  }
  return *std::move(records);
}

}  // namespace stackcheck::properties
