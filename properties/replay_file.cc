#include "properties/replay_file.h"

#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "core/version.h"
#include "properties/atomic_file.h"
#include "properties/quoted_text.h"
#include "properties/replay_fields.h"

namespace stackcheck::properties {
namespace {

// One line of text, split into words that remember their column.
struct Line {
  Pos at;  // the line, and the column of its first word (0 when not reported)
  absl::string_view keyword;
  std::vector<absl::string_view> rest;
  std::vector<int> rest_columns;  // 1-based, or 0 when columns are not reported
};

// Splits `raw` (line `line_no` of a file; stripped of nothing yet) into a
// Line; false for a blank or comment line.
bool SplitLine(absl::string_view raw, int line_no, bool columns, Line* out) {
  const absl::string_view line = absl::StripAsciiWhitespace(raw);
  if (line.empty() || line[0] == '#') return false;
  auto column = [&](absl::string_view w) {
    return columns ? static_cast<int>(w.data() - raw.data()) + 1 : 0;
  };
  std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
  out->at = {line_no, column(words.front())};
  out->keyword = words.front();
  out->rest.assign(words.begin() + 1, words.end());
  out->rest_columns.clear();
  for (absl::string_view w : out->rest) out->rest_columns.push_back(column(w));
  return true;
}

absl::Status ErrorAt(Pos at, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(Where(at), ": ", what));
}

// The key=value fields of one line; each may be consumed once. A field left
// out is an error where every field is required (replay files of the version
// that has it) and keeps its default otherwise (scenario files, and a field
// added after the file's version).
class Fields {
 public:
  static absl::StatusOr<Fields> Parse(const Line& l, bool required, int version) {
    Fields f(l.at, required, version);
    for (size_t i = 0; i < l.rest.size(); ++i) {
      const absl::string_view w = l.rest[i];
      const Pos at{l.at.line, l.rest_columns[i]};
      const size_t eq = w.find('=');
      if (eq == absl::string_view::npos || eq == 0) {
        return ErrorAt(at, absl::StrFormat("expected key=value, got '%s'", Quoted(w)));
      }
      if (!f.values_.emplace(w.substr(0, eq), Value{std::string(w.substr(eq + 1)), at}).second) {
        return ErrorAt(at, absl::StrFormat("field '%s' given twice", Quoted(w.substr(0, eq))));
      }
    }
    return f;
  }

  // Consumes the fields of `table` into `x`, in the table's order.
  template <typename T>
  absl::Status Take(absl::Span<const Field<T>> table, T* x) {
    for (const Field<T>& f : table) {
      std::uint64_t v;
      Pos at;
      bool given;
      if (absl::Status s = Get(f.key, f.since <= version_, &v, &at, &given); !s.ok()) return s;
      if (!given) continue;
      if (v > WidthOf(f).text_max) {
        return ErrorAt(at, std::holds_alternative<bool T::*>(f.member)
                               ? absl::StrFormat("field '%s': expected 0 or 1, got %d", f.key, v)
                               : absl::StrFormat("field '%s': %d is out of range", f.key, v));
      }
      Store(x, f, v);
    }
    return absl::OkStatus();
  }

  // After the Takes: anything left over is a field we do not know.
  absl::Status Done() {
    if (values_.empty()) return absl::OkStatus();
    const Value* first = nullptr;
    std::string key;
    for (const auto& [k, v] : values_) {
      if (first == nullptr || k < key) {
        first = &v;
        key = k;
      }
    }
    return ErrorAt(first->at, absl::StrFormat("unknown field '%s'", Quoted(key)));
  }

 private:
  struct Value {
    std::string text;
    Pos at;
  };

  Fields(Pos line, bool required, int version)
      : line_(line), required_(required), version_(version) {}

  // `in_version`: the record's format has the field.
  absl::Status Get(absl::string_view key, bool in_version, std::uint64_t* out, Pos* at,
                   bool* given) {
    auto it = values_.find(key);
    *given = it != values_.end();
    if (!*given) {
      if (!required_ || !in_version) return absl::OkStatus();
      return ErrorAt(line_, absl::StrFormat("missing field '%s'", key));
    }
    const Value v = std::move(it->second);  // erase frees the map's copy
    values_.erase(it);
    *at = v.at;
    if (!absl::SimpleAtoi(v.text, out)) {
      return ErrorAt(v.at, absl::StrFormat("field '%s': expected an unsigned integer, got '%s'",
                                           key, Quoted(v.text)));
    }
    return absl::OkStatus();
  }

  Pos line_;
  bool required_;
  int version_;
  absl::flat_hash_map<std::string, Value> values_;
};

// A line that holds the fields of `table`.
template <typename T>
absl::Status ParseFields(const Line& l, bool required, int version,
                         absl::Span<const Field<T>> table, T* x) {
  absl::StatusOr<Fields> f = Fields::Parse(l, required, version);
  if (!f.ok()) return f.status();
  RETURN_IF_ERROR(f->Take(table, x));
  return f->Done();
}

// A host operation's line, over `op` (which holds the defaults of fields a
// scenario file leaves out).
absl::Status ParseOp(const Line& l, bool required, int version, const OpSyntax& syntax,
                     HostOp* op) {
  absl::StatusOr<Fields> f = Fields::Parse(l, required, version);
  if (!f.ok()) return f.status();
  op->kind = syntax.kind;
  RETURN_IF_ERROR(f->Take(syntax.fields, op));
  RETURN_IF_ERROR(f->Take(syntax.region_fields, &op->region));
  return f->Done();
}

// What a scenario file's operation starts from before its fields are read.
HostOp DefaultOp(HostOp::Kind kind) {
  switch (kind) {
    case HostOp::Kind::kRun:
      return HostOp::Run(kNoRegion, 1, 1);
    case HostOp::Kind::kDeviceAlloc:
      return HostOp::DeviceAlloc(kDefaultStackSizePerWarp, 0);
    case HostOp::Kind::kEnterData:
      return HostOp::EnterData(kMappedVarBytes, 0);
    case HostOp::Kind::kDeviceFree:
      return HostOp::DeviceFree(0);
    case HostOp::Kind::kExitData:
      return HostOp::ExitData(0);
    case HostOp::Kind::kUpdate:
      return HostOp::Update(0);
    case HostOp::Kind::kRunDevicePtr:
      return HostOp::RunDevicePtr(HostOp::Run(kNoRegion, 1, 1).region, 0);
  }
  return HostOp{};
}

// The lines a replay file and a scenario file share: modes, device, faults,
// thread and the host operations. Replay files give every field; scenario
// files may leave fields out (their defaults: DefaultOp, CaseModes, Scenario).
class CaseLines {
 public:
  CaseLines(Case* c, SourceLines* at, bool required) : c_(c), at_(at), required_(required) {
    c_->scenario.threads.clear();
  }

  // The format version of the record the lines come from (the newest until
  // its header says otherwise).
  void set_version(int version) { version_ = version; }

  // Whether `keyword` starts one of these lines.
  static bool Owns(absl::string_view keyword) {
    return keyword == "modes" || keyword == "device" || keyword == "faults" ||
           keyword == "thread" || FindOp(keyword) != nullptr;
  }

  absl::Status Read(const Line& l) {
    Scenario& s = c_->scenario;
    if (l.keyword == "modes") {
      at_->modes = l.at;
      return ParseFields(l, required_, version_, absl::MakeConstSpan(kModeFields), &c_->modes);
    }
    if (l.keyword == "device") {
      at_->device = l.at;
      return ParseFields(l, required_, version_, absl::MakeConstSpan(kDeviceFields), &s);
    }
    if (l.keyword == "faults") {
      at_->faults = l.at;
      return ParseFields(l, required_, version_, absl::MakeConstSpan(kFaultFields), &s.faults);
    }
    if (l.keyword == "thread") {
      if (!l.rest.empty()) return ErrorAt(l.at, "'thread' takes no values");
      if (s.threads.size() >= kMaxThreads) {
        return ErrorAt(l.at, absl::StrFormat("more than %d threads", kMaxThreads));
      }
      s.threads.emplace_back();
      at_->threads.push_back(l.at);
      at_->ops.emplace_back();
      return absl::OkStatus();
    }
    const OpSyntax* syntax = FindOp(l.keyword);
    if (syntax == nullptr) {
      return ErrorAt(l.at, absl::StrFormat("unknown keyword '%s'", Quoted(l.keyword)));
    }
    if (s.threads.empty()) {
      return ErrorAt(l.at, absl::StrFormat("'%s' before any 'thread'", l.keyword));
    }
    HostOp op = DefaultOp(syntax->kind);
    RETURN_IF_ERROR(ParseOp(l, required_, version_, *syntax, &op));
    if (s.threads.back().ops.size() >= kMaxOpsPerThread) {
      return ErrorAt(l.at, absl::StrFormat("more than %d ops in one thread", kMaxOpsPerThread));
    }
    s.threads.back().ops.push_back(op);
    at_->ops.back().push_back(l.at);
    return absl::OkStatus();
  }

 private:
  Case* c_;
  SourceLines* at_;
  bool required_;
  int version_ = kReplayFormatVersion;
};

// Regions a scenario file leaves without an id get the smallest unused ones,
// in order.
void NumberUnnumberedRegions(Scenario& s) {
  absl::flat_hash_set<RegionId> used;
  for (const ThreadProgram& t : s.threads) {
    for (const HostOp& op : t.ops) {
      if (op.HasRegion() && op.region.id != kNoRegion) used.insert(op.region.id);
    }
  }
  RegionId next = 1;
  for (ThreadProgram& t : s.threads) {
    for (HostOp& op : t.ops) {
      if (!op.HasRegion() || op.region.id != kNoRegion) continue;
      while (used.contains(next)) ++next;
      op.region.id = next++;
    }
  }
}

// " key=value" for each field of `table`.
template <typename T>
void AppendFields(std::string* out, absl::Span<const Field<T>> table, const T& x) {
  for (const Field<T>& f : table) {
    absl::StrAppend(out, " ", f.key, "=");
    if (const auto* trap = std::get_if<CuResult T::*>(&f.member)) {
      absl::StrAppend(out, static_cast<int>(x.**trap));
    } else {
      absl::StrAppend(out, ValueOf(x, f));
    }
  }
}

// The line a replay file starts with: its format version.
absl::Status ReadHeader(const Line& l, int* version) {
  if (l.keyword != "stackcheck-replay" || l.rest.size() != 1) {
    return ErrorAt(l.at, "not a stackcheck replay file (expected 'stackcheck-replay <version>')");
  }
  if (!absl::SimpleAtoi(l.rest[0], version) || *version < kOldestReplayFormatVersion ||
      *version > kReplayFormatVersion) {
    return ErrorAt(
        l.at,
        absl::StrFormat("replay format version '%s' is not supported (this tool reads %d to %d)",
                        Quoted(l.rest[0]), kOldestReplayFormatVersion, kReplayFormatVersion));
  }
  return absl::OkStatus();
}

absl::Status ReadOneWord(const Line& l, std::string* out) {
  if (l.rest.size() != 1) return ErrorAt(l.at, absl::StrFormat("'%s' takes one value", l.keyword));
  *out = std::string(l.rest[0]);
  return absl::OkStatus();
}

absl::Status ReadSchedule(const Line& l, std::vector<std::uint64_t>* schedule) {
  if (l.rest.size() > kMaxSchedule) return ErrorAt(l.at, "schedule too long");
  for (absl::string_view w : l.rest) {
    std::uint64_t v;
    if (!absl::SimpleAtoi(w, &v)) {
      return ErrorAt(
          l.at, absl::StrFormat("schedule: expected an unsigned integer, got '%s'", Quoted(w)));
    }
    schedule->push_back(v);
  }
  return absl::OkStatus();
}

absl::Status ReadDigest(const Line& l, std::optional<std::uint64_t>* digest) {
  std::string hex;
  RETURN_IF_ERROR(ReadOneWord(l, &hex));
  std::uint64_t d;
  if (!absl::SimpleHexAtoi(hex, &d)) {
    return ErrorAt(l.at, absl::StrFormat("digest: bad hex '%s'", Quoted(hex)));
  }
  *digest = d;
  return absl::OkStatus();
}

// A fingerprint is the rest of `raw`, its spaces kept.
absl::Status ReadFingerprint(const Line& l, absl::string_view raw, std::string* fingerprint) {
  if (l.rest.empty()) return ErrorAt(l.at, "'fingerprint' takes a value (the rest of the line)");
  const absl::string_view line = absl::StripAsciiWhitespace(raw);
  *fingerprint = std::string(absl::StripAsciiWhitespace(line.substr(l.keyword.size())));
  return absl::OkStatus();
}

// A replay file's lines, read one by one into `r`: the header, then the
// case's lines and the record's own, each but the case's at most once, then
// 'end'.
class ReplayLines {
 public:
  explicit ReplayLines(ReplayRecord* r)
      : r_(r), case_lines_(&r->test_case, &at_, /*required=*/true) {}

  // Reads `l`, split from `raw` (a fingerprint is taken from the raw text).
  absl::Status Read(const Line& l, absl::string_view raw) {
    if (seen_end_) return ErrorAt(l.at, "text after 'end'");
    if (!seen_header_) {
      int version = 0;
      RETURN_IF_ERROR(ReadHeader(l, &version));
      case_lines_.set_version(version);
      seen_header_ = true;
      return absl::OkStatus();
    }
    const bool singleton = l.keyword != "thread" && FindOp(l.keyword) == nullptr;
    if (singleton && !seen_.insert(std::string(l.keyword)).second) {
      return ErrorAt(l.at, absl::StrFormat("'%s' given twice", Quoted(l.keyword)));
    }
    return ReadKeyword(l, raw);
  }

  // After the last line: whether the file was whole, and its record valid.
  absl::Status Finish() {
    if (!seen_header_) {
      return absl::InvalidArgumentError("empty file: not a stackcheck replay file");
    }
    for (absl::string_view required :
         {"tool", "policy", "property", "modes", "device", "faults", "schedule"}) {
      if (!seen_.contains(required)) {
        return absl::InvalidArgumentError(absl::StrFormat("missing '%s' line", required));
      }
    }
    if (!seen_end_) return absl::InvalidArgumentError("missing 'end' line: the file is truncated");
    return Validate(*r_, at_);
  }

 private:
  absl::Status ReadKeyword(const Line& l, absl::string_view raw) {
    const absl::string_view keyword = l.keyword;
    if (CaseLines::Owns(keyword)) return case_lines_.Read(l);
    if (keyword == "tool") {
      at_.tool = l.at;
      return ReadOneWord(l, &r_->tool_version);
    }
    if (keyword == "policy") {
      at_.policy = l.at;
      return ReadOneWord(l, &r_->policy);
    }
    if (keyword == "property") {
      at_.property = l.at;
      return ReadOneWord(l, &r_->property);
    }
    if (keyword == "schedule") {
      at_.schedule = l.at;
      return ReadSchedule(l, &r_->test_case.schedule);
    }
    if (keyword == "digest") return ReadDigest(l, &r_->digest);
    if (keyword == "fingerprint") return ReadFingerprint(l, raw, &r_->fingerprint);
    if (keyword == "end") {
      if (!l.rest.empty()) return ErrorAt(l.at, "'end' takes no values");
      seen_end_ = true;
      return absl::OkStatus();
    }
    return ErrorAt(l.at, absl::StrFormat("unknown keyword '%s'", Quoted(keyword)));
  }

  ReplayRecord* r_;
  SourceLines at_;
  CaseLines case_lines_;
  bool seen_header_ = false;
  bool seen_end_ = false;
  absl::flat_hash_set<std::string> seen_;  // singleton keywords
};

}  // namespace

std::string FormatScenarioText(const Case& c) {
  const Scenario& s = c.scenario;
  std::string out;
  absl::StrAppend(&out, "modes");
  AppendFields(&out, absl::MakeConstSpan(kModeFields), c.modes);
  absl::StrAppend(&out, "\ndevice");
  AppendFields(&out, absl::MakeConstSpan(kDeviceFields), s);
  absl::StrAppend(&out, "\nfaults");
  AppendFields(&out, absl::MakeConstSpan(kFaultFields), s.faults);
  absl::StrAppend(&out, "\n");
  for (const ThreadProgram& t : s.threads) {
    absl::StrAppend(&out, "thread\n");
    for (const HostOp& op : t.ops) {
      const OpSyntax& syntax = SyntaxOf(op.kind);
      absl::StrAppend(&out, syntax.keyword);
      AppendFields(&out, syntax.fields, op);
      AppendFields(&out, syntax.region_fields, op.region);
      absl::StrAppend(&out, "\n");
    }
  }
  return out;
}

absl::StatusOr<Case> ParseScenarioText(absl::string_view text) {
  Case c;
  SourceLines at;
  CaseLines lines(&c, &at, /*required=*/false);
  absl::flat_hash_set<std::string> seen;  // modes, device, faults
  int line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    Line l;
    if (!SplitLine(raw, line_no, /*columns=*/true, &l)) continue;
    if (!CaseLines::Owns(l.keyword)) {
      return ErrorAt(
          l.at, absl::StrFormat(
                    "unknown keyword '%s' (a scenario file holds modes, device, faults, thread and "
                    "the operations run, alloc, free, enter, exit, update)",
                    Quoted(l.keyword)));
    }
    const bool singleton = l.keyword == "modes" || l.keyword == "device" || l.keyword == "faults";
    if (singleton && !seen.insert(std::string(l.keyword)).second) {
      return ErrorAt(l.at, absl::StrFormat("'%s' given twice", Quoted(l.keyword)));
    }
    RETURN_IF_ERROR(lines.Read(l));
  }
  if (c.scenario.threads.empty()) {
    return absl::InvalidArgumentError("no 'thread' line: a scenario has 1 to 4 threads");
  }
  NumberUnnumberedRegions(c.scenario);
  RETURN_IF_ERROR(ValidateCase(c, at));
  return c;
}

absl::StatusOr<Case> ReadScenarioFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path, kMaxReplayFileBytes, "scenario file");
  if (!text.ok()) return text.status();
  absl::StatusOr<Case> c = ParseScenarioText(*text);
  if (!c.ok()) {
    return absl::Status(c.status().code(), absl::StrCat(path, ": ", c.status().message()));
  }
  return c;
}

std::string FormatReplayFile(const ReplayRecord& r) {
  std::string out;
  absl::StrAppend(&out, "# stackcheck replay file: `stackcheck replay FILE` re-executes it.\n");
  absl::StrAppend(&out, "stackcheck-replay ", kReplayFormatVersion, "\n");
  absl::StrAppend(&out, "tool ", r.tool_version.empty() ? kVersion : r.tool_version, "\n");
  absl::StrAppend(&out, "policy ", r.policy, "\n");
  absl::StrAppend(&out, "property ", r.property, "\n");
  absl::StrAppend(&out, FormatScenarioText(r.test_case));
  absl::StrAppend(&out, "schedule");
  for (std::uint64_t choice : r.test_case.schedule) absl::StrAppend(&out, " ", choice);
  absl::StrAppend(&out, "\n");
  if (r.digest.has_value()) absl::StrAppendFormat(&out, "digest %016x\n", *r.digest);
  if (!r.fingerprint.empty()) absl::StrAppend(&out, "fingerprint ", r.fingerprint, "\n");
  absl::StrAppend(&out, "end\n");
  return out;
}

absl::StatusOr<ReplayRecord> ParseReplayFile(absl::string_view text) {
  ReplayRecord r;
  ReplayLines lines(&r);
  int line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    Line l;
    if (!SplitLine(raw, line_no, /*columns=*/false, &l)) continue;
    RETURN_IF_ERROR(lines.Read(l, raw));
  }
  RETURN_IF_ERROR(lines.Finish());
  return r;
}

absl::Status WriteReplayFile(const std::string& path, const ReplayRecord& record) {
  return WriteFileAtomically(path, FormatReplayFile(record));
}

absl::StatusOr<ReplayRecord> ReadReplayFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path, kMaxReplayFileBytes, "replay file");
  if (!text.ok()) return text.status();
  absl::StatusOr<ReplayRecord> r = ParseReplayFile(*text);
  if (!r.ok()) {
    return absl::Status(r.status().code(), absl::StrCat(path, ": ", r.status().message()));
  }
  return r;
}

absl::StatusOr<ReplayRecord> LoadReplay(absl::string_view arg) {
  if (absl::StartsWith(arg, kReplayTokenPrefix)) return DecodeReplayToken(arg);
  return ReadReplayFile(std::string(arg));
}

}  // namespace stackcheck::properties
