// The verdict table: policy x property, one column per backend, each cell
// judged against the expected-verdicts table. The simulator campaign fills the
// "sim" column; validate (hardware/) fills "sim" from its fixed scenarios and
// can add a "cuda" column with the same cells.
#ifndef STACKCHECK_PROPERTIES_VERDICT_TABLE_H_
#define STACKCHECK_PROPERTIES_VERDICT_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
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

// Whether a search that did not find an expected violation disagrees.
enum class Reach : std::uint8_t {
  // The campaign: its generated cases reach every expected violation, so
  // one it did not find is a MISMATCH.
  kEveryExpectedBug,
  // validate: a few fixed scenarios, each searched within a bound; an
  // expected violation they did not show is "not reached", no disagreement.
  kFixedScenarios,
};

// How one cell stands against its row's expectation.
enum class Judgement : std::uint8_t {
  kAgrees,      // as expected, or the backend made no claim (kNotRun)
  kNotReached,  // an expected violation not shown, under kFixedScenarios
  kMismatch,    // a violation expected not to happen, an expected one
                // missed under kEveryExpectedBug, or a cell not checked
};

struct VerdictTable {
  std::vector<std::string> columns;  // backend names, e.g. {"sim"} or {"sim", "cuda"}
  std::vector<VerdictRow> rows;
  Reach reach = Reach::kEveryExpectedBug;

  // Adds (or finds) the row for (policy, property), with its expectation and
  // one empty cell per column.
  VerdictRow& Row(const std::string& policy, const std::string& property);
};

Judgement JudgeCell(const VerdictRow& row, const VerdictCell& cell, Reach reach);
absl::string_view JudgementName(Judgement judgement);  // "agrees", "not-reached", "mismatch"
// No cell of any row is a kMismatch.
bool AllMatch(const VerdictTable& table);

// Fixed-width text, one line per row, "<-- MISMATCH" marking a row with a
// kMismatch cell, "<-- not reached" one with a kNotReached cell.
std::string FormatVerdictTable(const VerdictTable& table);
// As a JSON array of rows, each {policy, property, expected, <column>: {...},
// judgement, matches}: the row's worst judgement, and whether it is no
// kMismatch.
void WriteVerdictTableJson(const VerdictTable& table, JsonWriter& json);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_VERDICT_TABLE_H_
