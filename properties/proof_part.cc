#include "properties/proof_part.h"

#include <iterator>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/text_digest.h"
#include "properties/replay_file.h"
#include "properties/search_checkpoint.h"

namespace stackcheck::properties {
namespace {

// The text, line by line:
//
//   stackcheck proof part 1
//   digest fnv1a64:HEX   (core/text_digest.h, over every line after this one)
//   key KEY                                  (C-escaped)
//   binary fnv1a64:HEX
//   shard INDEX COUNT
//   units SEEN WALK_ENDED                    (WALK_ENDED: 0 or 1)
//   finished RANGES                          ("none", or A-B,C-D,... of the
//                                            shard's own units by ordinal:
//                                            unit = INDEX + COUNT * ordinal)
//   escape EXPLORED OPTION PATH              (any number; EXPLORED 0 or 1, PATH
//                                            "-" or the options chosen from
//                                            the root, comma-separated)
//   counts EXECUTIONS WALK_EXECUTIONS PRIVATE_EXECUTIONS MILLISECONDS SLEEP_BLOCKED
//   stopped_by TEXT                          (C-escaped; empty when whole)
//   stack NUMBERS                            (only when the run stopped mid-walk:
//                                            where the shard's next run goes on,
//                                            ShardProgress::stack)
//   finding AT<tab>KNOWN<tab>TOKEN<tab>FINGERPRINT<tab>PROPERTY<tab>MESSAGE
//   known AT<tab>TOKEN<tab>FINGERPRINT<tab>PROPERTY<tab>MESSAGE
//   end
constexpr absl::string_view kHeader = "stackcheck proof part 2";
// Format 1's suspended stacks lack Footprint::beside, and its search ran
// under a dependence that ordered host-word loads after traps.
constexpr absl::string_view kEarlierDependenceHeader = "stackcheck proof part 1";
// A part lists each finished unit once in memory: far more units than the
// tops check chooses have (it stops deepening once a walk passes 200,000
// executions), few enough that a damaged count cannot exhaust memory.
constexpr std::uint64_t kMaxFinishedUnits = 10'000'000;

absl::Status LineError(std::size_t line, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrFormat("part line %d %s", line, why));
}

// The finished units as ranges of the shard's ordinals.
std::string EncodeFinished(const ProofPart& p) {
  if (p.finished.empty()) return "none";
  std::vector<std::string> ranges;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  for (std::size_t i = 0; i < p.finished.size(); ++i) {
    const std::uint64_t ordinal = p.finished[i] / p.count;
    if (i > 0 && ordinal == last + 1) {
      last = ordinal;
      continue;
    }
    if (i > 0) ranges.push_back(absl::StrCat(first, "-", last));
    first = last = ordinal;
  }
  ranges.push_back(absl::StrCat(first, "-", last));
  return absl::StrJoin(ranges, ",");
}

absl::Status DecodeFinished(absl::string_view text, std::size_t line, ProofPart& p) {
  if (text == "none") return absl::OkStatus();
  bool have_last = false;
  std::uint64_t last = 0;
  // The last ordinal whose unit a 64-bit count holds.
  const std::uint64_t max_ordinal = (~std::uint64_t{0} - p.index) / p.count;
  for (absl::string_view range : absl::StrSplit(text, ',')) {
    std::pair<absl::string_view, absl::string_view> ends = absl::StrSplit(range, '-');
    std::uint64_t first = 0;
    std::uint64_t end = 0;
    if (!absl::SimpleAtoi(ends.first, &first) || !absl::SimpleAtoi(ends.second, &end) ||
        end < first || (have_last && first <= last) || end > max_ordinal) {
      return LineError(line, absl::StrCat("has '", range, "', not an ascending range A-B"));
    }
    if (end - first >= kMaxFinishedUnits - p.finished.size()) {
      return LineError(line,
                       absl::StrFormat("lists more than %d finished units", kMaxFinishedUnits));
    }
    for (std::uint64_t ordinal = first; ordinal <= end; ++ordinal) {
      p.finished.push_back(p.index + std::uint64_t{p.count} * ordinal);
    }
    have_last = true;
    last = end;
  }
  return absl::OkStatus();
}

absl::Status DecodeEscape(absl::string_view text, std::size_t line, ProofPart& p) {
  std::vector<absl::string_view> fields = absl::StrSplit(text, ' ');
  sim::ShardProgress::Escape e;
  if (fields.size() != 3 || (fields[0] != "0" && fields[0] != "1") ||
      !absl::SimpleAtoi(fields[1], &e.option)) {
    return LineError(line, "should be 'escape EXPLORED OPTION PATH'");
  }
  e.explored = fields[0] == "1";
  if (fields[2] != "-") {
    for (absl::string_view step : absl::StrSplit(fields[2], ',')) {
      std::uint32_t option = 0;
      if (!absl::SimpleAtoi(step, &option)) {
        return LineError(line, absl::StrCat("has '", step, "' in its path, not a number"));
      }
      e.path.push_back(option);
    }
  }
  p.escapes.push_back(std::move(e));
  return absl::OkStatus();
}

// Exactly `count` numbers after the line's word.
absl::Status ReadNumbers(absl::string_view line, std::size_t line_number, absl::string_view word,
                         std::vector<std::uint64_t>& out, std::size_t count) {
  std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
  if (fields.size() != count + 1 || fields[0] != word) {
    return LineError(line_number, absl::StrFormat("should be '%s' and %d numbers", word, count));
  }
  out.assign(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    if (!absl::SimpleAtoi(fields[i + 1], &out[i])) {
      return LineError(line_number, absl::StrCat("has '", fields[i + 1], "', not a number"));
    }
  }
  return absl::OkStatus();
}

std::string EncodeFinding(const Finding& f, bool with_known) {
  const char* known = !with_known ? "" : (f.known ? "1\t" : "0\t");
  return absl::StrCat(f.at_execution, "\t", known, absl::CEscape(f.token), "\t",
                      absl::CEscape(f.violation.fingerprint), "\t",
                      absl::CEscape(f.violation.property), "\t",
                      absl::CEscape(f.violation.message));
}

absl::StatusOr<Finding> DecodeFinding(absl::string_view text, bool with_known, std::size_t line) {
  std::vector<absl::string_view> fields = absl::StrSplit(text, '\t');
  Finding f;
  const std::size_t k = with_known ? 1 : 0;
  if (fields.size() != 5 + k || !absl::SimpleAtoi(fields[0], &f.at_execution) ||
      (with_known && fields[1] != "0" && fields[1] != "1") ||
      !absl::CUnescape(fields[1 + k], &f.token) ||
      !absl::CUnescape(fields[2 + k], &f.violation.fingerprint) ||
      !absl::CUnescape(fields[3 + k], &f.violation.property) ||
      !absl::CUnescape(fields[4 + k], &f.violation.message)) {
    return LineError(line, "is not a finding (execution, token, fingerprint, property, message)");
  }
  f.known = with_known ? fields[1] == "1" : true;
  absl::StatusOr<ReplayRecord> record = DecodeReplayToken(f.token);
  if (!record.ok()) return LineError(line, record.status().message());
  f.schedule = record->test_case.schedule;
  return f;
}

}  // namespace

std::uint64_t ProofPart::EscapesExplored() const {
  std::uint64_t n = 0;
  for (const sim::ShardProgress::Escape& e : escapes) n += e.explored ? 1 : 0;
  return n;
}

bool ProofPart::Whole() const {
  return walk_ended && finished.size() == OwnedAmong(units_seen) &&
         EscapesExplored() == escapes.size();
}

std::uint64_t ProofPart::OwnedAmong(std::uint64_t units) const {
  if (count == 0 || units <= index) return 0;
  return (units - index - 1) / count + 1;
}

std::string PartKey(const ExploreSpec& spec) {
  return absl::StrCat(SearchKey(spec),
                      spec.exact_memory_ledger ? ", every allocation ordered" : "");
}

ProofPart PartOf(const ExploreSpec& spec, const ExploreReport& report, absl::string_view stopped_by,
                 const ProofPart* before) {
  ProofPart p;
  p.key = PartKey(spec);
  p.binary = ExecutableDigest();
  p.index = spec.shard.index;
  p.count = spec.shard.count;
  p.units_seen = report.shard.units_seen;
  p.walk_ended = report.shard.walk_ended;
  p.finished = report.shard.progress.finished;
  p.escapes = report.shard.progress.escapes;
  p.stack = report.shard.progress.stack;
  p.executions = report.executions;
  p.walk_executions = report.shard.walk_executions;
  p.private_executions = report.shard.private_executions;
  p.seconds = report.seconds;
  p.sleep_blocked = report.sleep_blocked;
  p.stopped_by = p.Whole() ? "" : std::string(stopped_by);
  if (before != nullptr) {
    p.executions += before->executions;
    p.walk_executions += before->walk_executions;
    p.private_executions += before->private_executions;
    p.seconds += before->seconds;
    p.sleep_blocked += before->sleep_blocked;
    p.findings = before->findings;
    p.known_met = before->known_met;
  }
  AppendNewFingerprints(p.findings, report.findings);
  AppendNewFingerprints(p.known_met, report.known_met);
  return p;
}

std::string EncodeProofPart(const ProofPart& p) {
  std::string out = absl::StrCat("key ", absl::CEscape(p.key), "\nbinary ", p.binary, "\nshard ",
                                 p.index, " ", p.count, "\nunits ", p.units_seen, " ",
                                 p.walk_ended ? 1 : 0, "\nfinished ", EncodeFinished(p), "\n");
  for (const sim::ShardProgress::Escape& e : p.escapes) {
    absl::StrAppend(&out, "escape ", e.explored ? 1 : 0, " ", e.option, " ",
                    e.path.empty() ? "-" : absl::StrJoin(e.path, ","), "\n");
  }
  absl::StrAppend(&out, "counts ", p.executions, " ", p.walk_executions, " ", p.private_executions,
                  " ", static_cast<std::uint64_t>(p.seconds * 1000), " ", p.sleep_blocked,
                  "\nstopped_by ", absl::CEscape(p.stopped_by), "\n");
  if (!p.stack.empty()) absl::StrAppend(&out, "stack", p.stack, "\n");
  for (const Finding& f : p.findings)
    absl::StrAppend(&out, "finding ", EncodeFinding(f, true), "\n");
  for (const Finding& f : p.known_met)
    absl::StrAppend(&out, "known ", EncodeFinding(f, false), "\n");
  absl::StrAppend(&out, "end\n");
  return absl::StrCat(kHeader, "\ndigest ", TextDigestOf(out), "\n", out);
}

std::string RedigestProofPartForTesting(absl::string_view text) {
  std::vector<absl::string_view> head = absl::StrSplit(text, absl::MaxSplits('\n', 2));
  if (head.size() < 3) return std::string(text);
  return absl::StrCat(head[0], "\ndigest ", TextDigestOf(head[2]), "\n", head[2]);
}

absl::StatusOr<ProofPart> DecodeProofPart(absl::string_view whole) {
  std::vector<absl::string_view> head = absl::StrSplit(whole, absl::MaxSplits('\n', 2));
  if (head[0] == kEarlierDependenceHeader) {
    return absl::InvalidArgumentError(
        "the part was written by an earlier stackcheck, whose steps were ordered by another "
        "dependence: its units are not this split's; run its shard again");
  }
  if (head[0] != kHeader) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a proof part: the first line is not '", kHeader, "'"));
  }
  if (head.size() < 3 || !absl::StartsWith(head[1], "digest ")) {
    return absl::InvalidArgumentError("the part is cut short before its digest");
  }
  const absl::string_view text = head[2];
  const std::string computed = TextDigestOf(text);
  if (head[1].substr(7) != computed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the part's content does not match its digest (", head[1].substr(7), " recorded, ",
        computed, " computed): it was damaged or edited since it was written"));
  }
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // Line numbers count from the file's first line; the content starts at 3.
  auto at = [&lines](std::size_t n) { return n - 3 < lines.size() ? lines[n - 3] : ""; };
  ProofPart p;
  if (!absl::StartsWith(at(3), "key ") || !absl::CUnescape(at(3).substr(4), &p.key)) {
    return LineError(3, "should be the search's key");
  }
  if (!absl::StartsWith(at(4), "binary ")) return LineError(4, "should be the binary's digest");
  p.binary = std::string(at(4).substr(7));
  std::vector<std::uint64_t> n;
  if (absl::Status s = ReadNumbers(at(5), 5, "shard", n, 2); !s.ok()) return s;
  if (n[1] == 0 || n[1] > 1'000'000 || n[0] >= n[1]) {
    return LineError(5, "should be an index below a count of 1..1000000");
  }
  p.index = static_cast<std::uint32_t>(n[0]);
  p.count = static_cast<std::uint32_t>(n[1]);
  if (absl::Status s = ReadNumbers(at(6), 6, "units", n, 2); !s.ok()) return s;
  if (n[1] > 1) return LineError(6, "should end in 0 or 1");
  p.units_seen = n[0];
  p.walk_ended = n[1] == 1;
  if (!absl::StartsWith(at(7), "finished ")) return LineError(7, "should list the finished units");
  if (absl::Status s = DecodeFinished(at(7).substr(9), 7, p); !s.ok()) return s;
  if (!p.finished.empty() && p.finished.back() >= p.units_seen) {
    return LineError(7, "lists a unit the walk had not numbered");
  }
  std::size_t line = 8;
  for (; absl::StartsWith(at(line), "escape "); ++line) {
    if (absl::Status s = DecodeEscape(at(line).substr(7), line, p); !s.ok()) return s;
  }
  if (absl::Status s = ReadNumbers(at(line), line, "counts", n, 5); !s.ok()) return s;
  p.executions = n[0];
  p.walk_executions = n[1];
  p.private_executions = n[2];
  p.seconds = static_cast<double>(n[3]) / 1000;
  p.sleep_blocked = n[4];
  ++line;
  if (!absl::StartsWith(at(line), "stopped_by ") ||
      !absl::CUnescape(at(line).substr(11), &p.stopped_by)) {
    return LineError(line, "should say what stopped the run");
  }
  ++line;
  if (absl::StartsWith(at(line), "stack ")) {
    // Numbers and the one ';' DfsStrategy writes; read, and checked against
    // the search, only by the run that goes on from it.
    p.stack = std::string(at(line).substr(5));
    if (p.stack.find_first_not_of("0123456789 ;") != std::string::npos || p.walk_ended) {
      return LineError(line, "is not a stack a shard stopped mid-walk leaves");
    }
    ++line;
  }
  for (;; ++line) {
    const absl::string_view here = at(line);
    if (here == "end") break;
    const bool finding = absl::StartsWith(here, "finding ");
    if (!finding && !absl::StartsWith(here, "known ")) {
      return LineError(line, "should be a finding, a known bug met, or 'end'");
    }
    absl::StatusOr<Finding> f = DecodeFinding(here.substr(here.find(' ') + 1), finding, line);
    if (!f.ok()) return f.status();
    (finding ? p.findings : p.known_met).push_back(*std::move(f));
  }
  if (line - 3 + 2 != lines.size() || !lines.back().empty()) {
    return LineError(line + 1, "follows 'end'");
  }
  return p;
}

}  // namespace stackcheck::properties
