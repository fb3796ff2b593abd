// What the testbed expects of each policy, property by property: the one table
// that the property tests and `stackcheck` (exit code 0/1) both judge against.
// The table is data, properties/expected_verdicts.txt, compiled in; the
// deviations a policy accepts are added from its registry entry.
#ifndef STACKCHECK_PROPERTIES_EXPECTED_VERDICTS_H_
#define STACKCHECK_PROPERTIES_EXPECTED_VERDICTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "properties/data_records.h"

namespace stackcheck::properties {

enum class Expectation : std::uint8_t {
  kHolds,              // no execution may violate it
  kViolated,           // exploration must find a violation
  kAcceptedDeviation,  // the policy declares it accepts this deviation:
                       // found or not, the verdict matches
  kViolatedRarely,     // a real violation that needs tens of thousands of
                       // executions: a campaign within its budget may or may
                       // not meet it, so either verdict matches there; the
                       // regression corpus (tests/corpus) pins that it exists
};

absl::string_view ExpectationName(Expectation e);  // "holds", "violated", ...

// A row of the table: only pairs that differ from kHolds are listed.
struct ExpectedRow {
  absl::string_view policy;
  absl::string_view property;
  Expectation expectation;
  absl::string_view why;  // the hazard, or how the testbed's verdict was settled
};

// The listed rows (for documentation and `--json`).
const std::vector<ExpectedRow>& ExpectedRows();

// The expectation for (policy, property); kHolds when the table lists nothing,
// which is also what an unknown (new) policy is held to.
Expectation ExpectedVerdict(absl::string_view policy, absl::string_view property);
// The row's explanation, or "" when the pair is not listed.
absl::string_view ExpectedWhy(absl::string_view policy, absl::string_view property);

// expected_verdicts.txt's text, the schema of its records ("row POLICY
// PROPERTY EXPECTATION", then "why" lines), and one record read as a row,
// its explanation joined into `why` (which the row's view points into).
absl::string_view ExpectedVerdictsTable();
const RecordSchema& ExpectedRowSchema();
absl::StatusOr<ExpectedRow> ParseExpectedRow(const DataRecord& record, std::string* why);

// Whether an observed verdict matches the expectation.
bool VerdictMatches(Expectation expected, bool violated);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_EXPECTED_VERDICTS_H_
