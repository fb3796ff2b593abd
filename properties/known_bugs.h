// The known bugs, by fingerprint (sim/fingerprint.h): which violations are
// the bugs properties/expected_verdicts.txt explains. A violation whose
// fingerprint is not listed for its policy is NEW, even on a property the
// policy is known to break, so a second bug never hides behind the first.
// The table is data, properties/known_bugs.txt, compiled in: the one record.
// The corpus (tests/corpus) holds a replay of each row that names one, the
// campaign and `check` judge against it.
#ifndef STACKCHECK_PROPERTIES_KNOWN_BUGS_H_
#define STACKCHECK_PROPERTIES_KNOWN_BUGS_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "properties/data_records.h"
#include "sim/monitor.h"

namespace stackcheck::properties {

struct KnownBug {
  absl::string_view policy;
  absl::string_view fingerprint;  // "PROPERTY: ..." as sim::Fingerprint writes it
  // The corpus file that reproduces it (tests/corpus/NAME), or "".
  absl::string_view corpus;
  // The `check` scenario whose exhaustive search meets it (CheckScenarioKey),
  // or "": an exhaustive `check` of that scenario that does not meet it
  // reports it FIXED?.
  absl::string_view check_scenario;
};

const std::vector<KnownBug>& KnownBugs();

// known_bugs.txt's text and the schema of its records ("bug POLICY", then
// "fingerprint", and optionally "corpus" and "check").
absl::string_view KnownBugsTable();
const RecordSchema& KnownBugSchema();

// The property a fingerprint is of (the text before its first ':').
absl::string_view FingerprintProperty(absl::string_view fingerprint);

// Whether `fingerprint` is a known bug of `policy`.
bool IsKnownBug(absl::string_view policy, absl::string_view fingerprint);

// Whether the violation is no news for `policy`: a known bug, or a deviation
// the policy declares it accepts.
bool IsKnownViolation(absl::string_view policy, const sim::Violation& violation);

// The known bugs of `policy` on `property` ("" for every property).
std::vector<const KnownBug*> KnownBugsOf(absl::string_view policy, absl::string_view property = "");

// How KnownBug::check_scenario names a `check` scenario.
std::string CheckScenarioKey(absl::string_view scenario, int threads, int regions, bool abort,
                             int mapped_vars);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_KNOWN_BUGS_H_
