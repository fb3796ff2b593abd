// A violated property, where it was first seen, and how to replay it: what
// a search reports, of a model (Explore, explore.h) and of a real program
// (ExploreProgram, program/explore_program.h) alike.
#ifndef STACKCHECK_PROPERTIES_FINDING_H_
#define STACKCHECK_PROPERTIES_FINDING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/monitor.h"

namespace stackcheck::properties {

struct Finding {
  sim::Violation violation;        // its fingerprint says which bug
  bool known = false;              // IsKnownViolation for the policy (models)
  std::uint64_t at_execution = 0;  // 1-based
  // What replays it: the sequence strategy's values (a model), the exact
  // answers (a program).
  std::vector<std::uint64_t> schedule;
  // The replay token: "sc1." (policy, property, case and schedule) or
  // "exec1:" (program, arguments, faults and schedule).
  std::string token;
};

// The finding of `findings` with that fingerprint, or null.
inline const Finding* FindFingerprint(const std::vector<Finding>& findings,
                                      const std::string& fingerprint) {
  for (const Finding& f : findings) {
    if (f.violation.fingerprint == fingerprint) return &f;
  }
  return nullptr;
}

// Appends the findings of `from` whose fingerprint `into` lacks, in order:
// the first meeting of each bug is kept.
inline void AppendNewFingerprints(std::vector<Finding>& into, const std::vector<Finding>& from) {
  for (const Finding& f : from) {
    if (FindFingerprint(into, f.violation.fingerprint) == nullptr) into.push_back(f);
  }
}

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_FINDING_H_
