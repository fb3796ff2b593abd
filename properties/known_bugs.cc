#include "properties/known_bugs.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "properties/data_records.h"
#include "properties/expected_verdicts.h"

namespace stackcheck::properties {

// known_bugs.txt, compiled in (BUILD: known_bugs_text).
extern const char kKnownBugsText[];

absl::string_view KnownBugsTable() { return kKnownBugsText; }

const RecordSchema& KnownBugSchema() {
  static const auto* const schema =
      new RecordSchema{"bug", {"fingerprint"}, {"corpus", "check"}, {}};
  return *schema;
}

const std::vector<KnownBug>& KnownBugs() {
  // The records own the text the rows' views point into.
  static const auto* const records = new std::vector<DataRecord>(
      CompiledInRecords("known_bugs.txt", kKnownBugsText, KnownBugSchema()));
  static const auto* const rows = [] {
    auto* rows = new std::vector<KnownBug>;
    for (const DataRecord& r : *records) {
      rows->push_back(
          KnownBug{r.head, r.First("fingerprint"), r.First("corpus"), r.First("check")});
    }
    return rows;
  }();
  return *rows;
}

absl::string_view FingerprintProperty(absl::string_view fingerprint) {
  const std::size_t colon = fingerprint.find(':');
  return colon == absl::string_view::npos ? fingerprint : fingerprint.substr(0, colon);
}

bool IsKnownBug(absl::string_view policy, absl::string_view fingerprint) {
  // Asked at every violation an exploration passes: a hash lookup.
  static const auto* const index = [] {
    auto* set = new absl::flat_hash_set<std::pair<absl::string_view, absl::string_view>>();
    for (const KnownBug& bug : KnownBugs()) set->emplace(bug.policy, bug.fingerprint);
    return set;
  }();
  return index->contains(std::make_pair(policy, fingerprint));
}

bool IsKnownViolation(absl::string_view policy, const sim::Violation& violation) {
  return IsKnownBug(policy, violation.fingerprint) ||
         ExpectedVerdict(policy, violation.property) == Expectation::kAcceptedDeviation;
}

std::vector<const KnownBug*> KnownBugsOf(absl::string_view policy, absl::string_view property) {
  std::vector<const KnownBug*> out;
  for (const KnownBug& bug : KnownBugs()) {
    if (bug.policy != policy) continue;
    if (!property.empty() && FingerprintProperty(bug.fingerprint) != property) continue;
    out.push_back(&bug);
  }
  return out;
}

std::string CheckScenarioKey(absl::string_view scenario, int threads, int regions, bool abort,
                             int mapped_vars) {
  return absl::StrFormat("%s threads=%d regions=%d abort=%d mapped_vars=%d", scenario, threads,
                         regions, abort ? 1 : 0, mapped_vars);
}

}  // namespace stackcheck::properties
