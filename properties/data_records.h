// The checked-in tables of properties/ (known_bugs.txt, expected_verdicts.txt)
// are records of "key value" lines, read by this one parser:
//
//   # a comment; blank lines are ignored
//   bug v2-gcc11                  <- a record starts at its kind's line
//   fingerprint no-deadlock: ...  <- then its fields, one per line
//   corpus v2-gcc11.no-deadlock.replay
//
// A schema names each kind's fields: required (exactly once), optional (at
// most once) and repeated (once or more, joined). Errors name the table and
// the line. The tables are compiled in (embedded_text.bzl), so the binary
// needs no file at run time; data_records_test holds them to their schema.
#ifndef STACKCHECK_PROPERTIES_DATA_RECORDS_H_
#define STACKCHECK_PROPERTIES_DATA_RECORDS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::properties {

struct DataRecord {
  int line = 0;      // of its first line, 1-based
  std::string head;  // the rest of its first line, after the kind
  std::vector<std::pair<std::string, std::string>> fields;  // in order
  // The field's value ("" when absent); a repeated field's lines joined by
  // one space.
  std::string Get(absl::string_view key) const;
  // A view of the field's first value, in this record ("" when absent).
  absl::string_view First(absl::string_view key) const;
};

struct RecordSchema {
  absl::string_view kind;  // the first word of a record's first line
  std::vector<absl::string_view> required;
  std::vector<absl::string_view> optional;
  std::vector<absl::string_view> repeated;  // at least once
};

// `table` names the text in errors ("known_bugs.txt").
absl::StatusOr<std::vector<DataRecord>> ParseRecords(absl::string_view table,
                                                     absl::string_view text,
                                                     const RecordSchema& schema);

// ParseRecords of a compiled-in table, which its test holds to the schema: a
// failure here is a build that skipped that test, and ends the process.
std::vector<DataRecord> CompiledInRecords(absl::string_view table, absl::string_view text,
                                          const RecordSchema& schema);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_DATA_RECORDS_H_
