#include "sim/strategies/number_line.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace stackcheck::sim {

void PutCandidate(std::string* out, const Candidate& c) {
  const Footprint& f = c.next;
  for (std::uint64_t v : {std::uint64_t{c.actor}, std::uint64_t{f.count}, std::uint64_t{f.program},
                          std::uint64_t{f.held}, std::uint64_t{f.breaks}, std::uint64_t{f.blocking},
                          std::uint64_t{f.ends}, std::uint64_t{f.beside}}) {
    Put(out, v);
  }
  for (std::uint8_t i = 0; i < f.count; ++i) {
    Put(out, f.accesses[i].object);
    Put(out, f.accesses[i].write ? 1 : 0);
  }
}

void PutCandidates(std::string* out, absl::Span<const Candidate> cs) {
  Put(out, cs.size());
  for (const Candidate& c : cs) PutCandidate(out, c);
}

NumberLine::NumberLine(absl::string_view line, std::string what)
    : fields_(absl::StrSplit(line, ' ', absl::SkipEmpty())), what_(std::move(what)) {}

absl::string_view NumberLine::Word() {
  if (next_ >= fields_.size()) return "";
  return fields_[next_++];
}

bool NumberLine::Read(std::uint64_t max, std::uint64_t* value) {
  if (!error_.ok()) return false;
  if (next_ >= fields_.size()) return Fail("ends early");
  const absl::string_view field = fields_[next_++];
  // Parsed aside: a value out of range never reaches the caller, who may
  // size a vector by it.
  std::uint64_t parsed = 0;
  if (!absl::SimpleAtoi(field, &parsed) || parsed > max) {
    return Fail(absl::StrFormat("has '%s' where a number up to %d belongs", field, max));
  }
  *value = parsed;
  return true;
}

bool NumberLine::ReadCandidate(Candidate* c) {
  Footprint& f = c->next;
  if (!ReadAs(UINT32_MAX, &c->actor) || !ReadAs(3, &f.count) || !ReadAs(255, &f.program) ||
      !ReadAs(255, &f.held) || !ReadAs(255, &f.breaks) || !ReadAs(255, &f.blocking) ||
      !ReadAs(255, &f.ends) || !ReadAs(255, &f.beside)) {
    return false;
  }
  for (std::uint8_t i = 0; i < f.count; ++i) {
    if (!ReadAs(UINT32_MAX, &f.accesses[i].object) || !ReadBool(&f.accesses[i].write)) {
      return false;
    }
  }
  return true;
}

bool NumberLine::ReadCandidates(std::uint64_t max, CandidateList* cs) {
  std::uint64_t n = 0;
  if (!Read(max, &n)) return false;
  // Each candidate takes at least kCandidateFields fields: a count the line
  // cannot hold is refused before anything is sized by it.
  if (n > Remaining() / kCandidateFields) {
    return Fail(absl::StrFormat("lists %d candidates but holds fields for %d", n,
                                Remaining() / kCandidateFields));
  }
  cs->resize(n);
  for (Candidate& c : *cs) {
    if (!ReadCandidate(&c)) return false;
  }
  return true;
}

bool NumberLine::Fail(absl::string_view why) {
  if (error_.ok()) error_ = absl::InvalidArgumentError(absl::StrCat(what_, " ", why));
  return false;
}

absl::Status NumberLine::Done() {
  if (error_.ok() && next_ != fields_.size()) Fail("has more numbers than it should");
  return error_;
}

}  // namespace stackcheck::sim
