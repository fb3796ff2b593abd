// The verdict table: policy x property, one column per backend, each cell
// judged against the expected-verdicts table. The simulator campaign fills the
// "sim" column; the hardware runner (hardware/) can fill a "cuda" column with the
// same cells and print both side by side.
#ifndef STACKCHECK_PROPERTIES_VERDICT_TABLE_H_
#define STACKCHECK_PROPERTIES_VERDICT_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "properties/expected_verdicts.h"
#include "properties/json_writer.h"

namespace stackcheck::properties {

struct VerdictCell {
  enum class State : std::uint8_t {
    kNotRun,       // this backend did not look (or cannot observe the property)
    kHolds,        // no violation in `executions` executions
    kViolated,     // see size / replay / message
    kUnavailable,  // the backend could not check it; `message` says why
  };
  State state = State::kNotRun;
  std::uint64_t executions = 0;  // executions that checked the property
  std::string size;              // shrunk counterexample, "1 thread, 2 regions, ..."
  std::string replay;            // replay file path, or token when no file
  std::string message;           // the violation (actors, resources, cycle)
};

struct VerdictRow {
  std::string policy;
  std::string property;
  Expectation expected = Expectation::kHolds;
  std::vector<VerdictCell> cells;  // one per column
};

struct VerdictTable {
  std::vector<std::string> columns;  // backend names, e.g. {"sim"} or {"sim", "cuda"}
  std::vector<VerdictRow> rows;

  // Adds (or finds) the row for (policy, property), with its expectation and
  // one empty cell per column.
  VerdictRow& Row(const std::string& policy, const std::string& property);
};

// Whether one cell agrees with its row's expectation. kNotRun agrees (the
// backend made no claim); kUnavailable does not.
bool CellMatches(const VerdictRow& row, const VerdictCell& cell);
// Every cell of every row matches.
bool AllMatch(const VerdictTable& table);

// Fixed-width text, one line per row, "MISMATCH" marking disagreements.
std::string FormatVerdictTable(const VerdictTable& table);
// As a JSON array of rows, each {policy, property, expected, <column>: {...}}.
void WriteVerdictTableJson(const VerdictTable& table, JsonWriter& json);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_VERDICT_TABLE_H_
