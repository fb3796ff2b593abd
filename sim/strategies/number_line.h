// The text form of a stopped search's state (SplitTree::Save, DfsStrategy's
// suspended stacks): lines of unsigned numbers, written with Put and read
// back in the same order with Read, each value checked against its range so
// that a damaged file is refused with the line and the value, never trusted.
#ifndef STACKCHECK_SIM_STRATEGIES_NUMBER_LINE_H_
#define STACKCHECK_SIM_STRATEGIES_NUMBER_LINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/strategy.h"

namespace stackcheck::sim {

using CandidateList = absl::InlinedVector<Candidate, 4>;

// Appends " value" for each value.
inline void Put(std::string* out, std::uint64_t value) { absl::StrAppend(out, " ", value); }
// A candidate: its actor, its footprint's count, program, held, breaks,
// blocking and ends, then (object, write) for each access.
void PutCandidate(std::string* out, const Candidate& c);
// The count, then each candidate.
void PutCandidates(std::string* out, absl::Span<const Candidate> cs);

class NumberLine {
 public:
  // `what` names the line in errors ("split-tree line 4").
  NumberLine(absl::string_view line, std::string what);

  // The next field as a word (empty at the end).
  absl::string_view Word();
  // False, with the error kept, when the field is missing, not a number or
  // above `max`; false at once after an earlier error.
  bool Read(std::uint64_t max, std::uint64_t* value);
  template <typename T>
  bool ReadAs(std::uint64_t max, T* value) {
    std::uint64_t v = 0;
    if (!Read(max, &v)) return false;
    *value = static_cast<T>(v);
    return true;
  }
  bool ReadBool(bool* value) { return ReadAs(1, value); }
  // The fields not read yet: a count read from the line is checked against
  // it before anything is sized by the count.
  std::size_t Remaining() const { return fields_.size() - next_; }
  // The fields one candidate takes at least (PutCandidate).
  static constexpr std::size_t kCandidateFields = 8;
  bool ReadCandidate(Candidate* c);
  // At most `max` candidates.
  bool ReadCandidates(std::uint64_t max, CandidateList* cs);
  // Keeps the first error only.
  bool Fail(absl::string_view why);
  bool ok() const { return error_.ok(); }
  // The line's error, or one for fields left over.
  absl::Status Done();

 private:
  std::vector<absl::string_view> fields_;
  std::size_t next_ = 0;
  std::string what_;
  absl::Status error_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_NUMBER_LINE_H_
