// The known bugs, by fingerprint (sim/fingerprint.h): which violations are
// the bugs properties/expected_verdicts.cc explains. A violation whose
// fingerprint is not listed for its policy is NEW, even on a property the
// policy is known to break, so a second bug never hides behind the first.
// This table is the one record: the corpus (tests/corpus) holds a replay of
// each row that names one, the campaign and `check` judge against it.
#ifndef STACKCHECK_PROPERTIES_KNOWN_BUGS_H_
#define STACKCHECK_PROPERTIES_KNOWN_BUGS_H_

#include <vector>

#include "absl/strings/string_view.h"
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
