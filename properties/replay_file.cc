#include "properties/replay_file.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "core/version.h"
#include "properties/atomic_file.h"
#include "properties/catalogue.h"
#include "properties/quoted_text.h"

namespace stackcheck::properties {
namespace {

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

// Bounds that keep a hand-edited file from asking the simulator for the absurd.
constexpr std::uint64_t kMaxThreads = 4;
constexpr std::uint64_t kMaxWarpSlots = 4096;                // teams * warps
constexpr std::uint64_t kMaxWarps = 32;                      // libgomp's limit per team
constexpr std::uint64_t kMaxDurationNs = 1'000'000'000'000;  // 1000 s virtual
constexpr std::uint64_t kMaxStepBound = 100'000'000;
// Longer than any schedule a file within kMaxReplayFileBytes holds.
constexpr std::size_t kMaxSchedule = 1'000'000;
constexpr std::size_t kMaxOpsPerThread = 10'000;
constexpr std::uint64_t kMaxMappedVars = 64;

// Byte counts (capacity, limits, allocations, a region's stacks) stay below
// this, so that the simulator's sums and roundings of them cannot wrap.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 44;  // 16 TiB

constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t k32 = std::numeric_limits<std::uint32_t>::max();

// ---------------------------------------------------------------- fields

// One key=value field of a record part (the modes, the device, the faults, a
// region, a host operation). The text writer and parser, the token encoder
// and decoder and the validation all walk the same table, in its order: that
// order is the order of the fields on a line and in a token. A new field is
// one row (and, as the format changes, a new kReplayFormatVersion).
template <typename T>
struct Field {
  absl::string_view key;
  std::variant<bool T::*, std::uint32_t T::*, std::uint64_t T::*, CuResult T::*> member;
  // Validation refuses a value outside [min, max] with `out_of_range`, in
  // which $key, $min, $max and $value are replaced; "" is "$key must be
  // $min..$max". (Checks that span several fields are written out in
  // Validate.)
  std::uint64_t min = 0;
  std::uint64_t max = kNoLimit;
  absl::string_view out_of_range = "";
  // The token decoder refuses a value above this, or above what the member's
  // type holds in a token, as malformed.
  std::uint64_t token_max = kNoLimit;
};

// The type of the member `m` of a T points to.
template <typename T, typename M>
using MemberType = std::decay_t<decltype(std::declval<T&>().*std::declval<M>())>;

// The largest value a field's member holds in the text, and in a token (where
// a trap code has 16 bits).
struct Width {
  std::uint64_t text_max, token_max;
};
template <typename T>
Width WidthOf(const Field<T>& f) {
  return std::visit(
      [](auto m) -> Width {
        using V = MemberType<T, decltype(m)>;
        if constexpr (std::is_same_v<V, bool>) return {1, 1};
        if constexpr (std::is_same_v<V, std::uint64_t>) return {kNoLimit, kNoLimit};
        if constexpr (std::is_same_v<V, CuResult>) return {k32, 0xffff};
        return {k32, k32};
      },
      f.member);
}

template <typename T>
std::uint64_t ValueOf(const T& x, const Field<T>& f) {
  return std::visit([&x](auto m) { return static_cast<std::uint64_t>(x.*m); }, f.member);
}

// `v` is at most WidthOf(f).text_max.
template <typename T>
void Store(T* x, const Field<T>& f, std::uint64_t v) {
  std::visit(
      [x, v](auto m) {
        using V = MemberType<T, decltype(m)>;
        if constexpr (std::is_same_v<V, bool>) {
          x->*m = v == 1;
        } else if constexpr (std::is_same_v<V, CuResult>) {
          x->*m = static_cast<CuResult>(static_cast<std::uint32_t>(v));
        } else {
          x->*m = static_cast<V>(v);
        }
      },
      f.member);
}

template <typename T>
std::string RangeError(const Field<T>& f, std::uint64_t v) {
  return absl::StrReplaceAll(f.out_of_range.empty() ? "$key must be $min..$max" : f.out_of_range,
                             {{"$key", f.key},
                              {"$min", absl::StrCat(f.min)},
                              {"$max", absl::StrCat(f.max)},
                              {"$value", absl::StrCat(v)}});
}

// The tables. Each order is the format's; see Field.

constexpr Field<sim::SimModes> kModeFields[] = {
    {"free_waits_for_streams", &sim::SimModes::free_waits_for_streams},
    {"serial_callback_thread", &sim::SimModes::serial_callback_thread},
    {"trap_code", &sim::SimModes::trap_code},  // a sticky error: checked in Validate
    {"alloc_granularity", &sim::SimModes::alloc_granularity, 1, kMaxBytes},
    {"step_bound", &sim::SimModes::step_bound, 1, kMaxStepBound},
};

constexpr Field<Scenario> kDeviceFields[] = {
    {"capacity", &Scenario::device_capacity, 1, kMaxBytes, "device capacity must be $min..$max"},
    {"soft_limit", &Scenario::soft_limit, 0, kMaxBytes, "$key must be at most $max"},
    {"close_at_end", &Scenario::close_at_end},
};

constexpr Field<FaultPlan> kFaultFields[] = {
    {"alloc_failure_at_call", &FaultPlan::alloc_failure_at_call},
    {"launch_failure_at_call", &FaultPlan::launch_failure_at_call},
    {"device_constructors", &FaultPlan::device_constructors},
    {"device_destructors", &FaultPlan::device_destructors},
};

// Messages are prefixed "region <id>: ". The id, the geometry and the stack
// size are checked together in Validate.
constexpr Field<RegionSpec> kRegionFields[] = {
    {"id", &RegionSpec::id},
    {"teams", &RegionSpec::teams},
    {"warps", &RegionSpec::warps},
    {"stack_size_per_warp", &RegionSpec::stack_size_per_warp},
    {"duration_ns", &RegionSpec::duration_ns, 0, kMaxDurationNs, "duration too long"},
    {"aborts", &RegionSpec::aborts},
    {"mapped_vars", &RegionSpec::mapped_vars, 0, kMaxMappedVars, "", kMaxMappedVars},
};

// Messages are prefixed "thread <index>: ".
constexpr Field<HostOp> kAllocFields[] = {
    {"slot", &HostOp::slot},
    {"bytes", &HostOp::bytes, 1, kMaxBytes, "alloc of $value bytes ($min..$max)"},
};
constexpr Field<HostOp> kEnterFields[] = {
    {"slot", &HostOp::slot},
    {"bytes", &HostOp::bytes},
};
constexpr Field<HostOp> kSlotFields[] = {
    {"slot", &HostOp::slot},
};

// A host operation: its keyword in the text, its fields, then (kRun) the
// fields of its region. Row i is HostOp::Kind i, whose number a token holds.
struct OpSyntax {
  HostOp::Kind kind;
  absl::string_view keyword;
  absl::Span<const Field<HostOp>> fields;
  absl::Span<const Field<RegionSpec>> region_fields;
};

constexpr OpSyntax kOps[] = {
    {HostOp::Kind::kRun, "run", {}, kRegionFields},
    {HostOp::Kind::kDeviceAlloc, "alloc", kAllocFields, {}},
    {HostOp::Kind::kDeviceFree, "free", kSlotFields, {}},
    {HostOp::Kind::kEnterData, "enter", kEnterFields, {}},
    {HostOp::Kind::kExitData, "exit", kSlotFields, {}},
    {HostOp::Kind::kUpdate, "update", kSlotFields, {}},
    {HostOp::Kind::kRunDevicePtr, "run_ptr", kSlotFields, kRegionFields},
};

constexpr bool OpsIndexedByKind() {
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    if (static_cast<std::size_t>(kOps[i].kind) != i) return false;
  }
  return true;
}
static_assert(OpsIndexedByKind(), "kOps row i must describe HostOp::Kind i");

const OpSyntax& SyntaxOf(HostOp::Kind kind) { return kOps[static_cast<std::size_t>(kind)]; }

const OpSyntax* FindOp(absl::string_view keyword) {
  for (const OpSyntax& op : kOps) {
    if (op.keyword == keyword) return &op;
  }
  return nullptr;
}

// ---------------------------------------------------------------- validation

// Where a part of a record was read from, for messages. A line of 0 is
// unknown (a token); a column of 0 is not reported (replay files name lines,
// scenario files lines and columns).
struct Pos {
  int line = 0;
  int column = 0;
};

std::string Where(Pos at) {
  if (at.column <= 0) return absl::StrFormat("line %d", at.line);
  return absl::StrFormat("line %d, column %d", at.line, at.column);
}

struct SourceLines {
  Pos tool, policy, property, modes, device, faults, schedule;
  std::vector<Pos> threads;           // the 'thread' lines
  std::vector<std::vector<Pos>> ops;  // [thread][op]
};

Pos LineOf(const std::vector<Pos>& lines, size_t i) { return i < lines.size() ? lines[i] : Pos{}; }

absl::Status InvalidAt(Pos at, absl::string_view what) {
  if (at.line <= 0) return absl::InvalidArgumentError(what);
  return absl::InvalidArgumentError(absl::StrCat(Where(at), ": ", what));
}

// The first field of `x` outside its table row's range, as an error.
template <typename T>
absl::Status CheckRanges(const T& x, absl::Span<const Field<T>> fields, Pos line,
                         absl::string_view prefix = "") {
  for (const Field<T>& f : fields) {
    const std::uint64_t v = ValueOf(x, f);
    if (v < f.min || v > f.max) {
      return InvalidAt(line, absl::StrCat(prefix, RangeError(f, v)));
    }
  }
  return absl::OkStatus();
}

// Checks what a well-formed case must satisfy beyond its syntax.
absl::Status ValidateCase(const Case& c, const SourceLines& at) {
  const Scenario& s = c.scenario;
  if (s.threads.empty() || s.threads.size() > kMaxThreads) {
    return InvalidAt(
        LineOf(at.threads, kMaxThreads),
        absl::StrFormat("%d threads; a scenario has 1 to %d", s.threads.size(), kMaxThreads));
  }
  absl::flat_hash_set<RegionId> ids;
  for (size_t t = 0; t < s.threads.size(); ++t) {
    if (s.threads[t].ops.size() > kMaxOpsPerThread) {
      return InvalidAt(LineOf(at.threads, t), absl::StrFormat("thread %d: too many ops", t));
    }
    const std::vector<Pos> no_lines;
    const std::vector<Pos>& op_lines = t < at.ops.size() ? at.ops[t] : no_lines;
    for (size_t i = 0; i < s.threads[t].ops.size(); ++i) {
      const HostOp& op = s.threads[t].ops[i];
      const Pos line = LineOf(op_lines, i);
      const OpSyntax& syntax = SyntaxOf(op.kind);
      RETURN_IF_ERROR(CheckRanges(op, syntax.fields, line, absl::StrFormat("thread %d: ", t)));
      if (syntax.region_fields.empty()) continue;
      const RegionSpec& g = op.region;
      if (g.id == kNoRegion || !ids.insert(g.id).second) {
        return InvalidAt(line, absl::StrFormat("region id %d: ids must be >= 1 and unique", g.id));
      }
      const std::uint64_t slots = static_cast<std::uint64_t>(g.teams) * g.warps;
      if (g.teams == 0 || g.warps == 0 || g.warps > kMaxWarps || slots > kMaxWarpSlots) {
        return InvalidAt(
            line,
            absl::StrFormat("region %d: geometry %dx%d outside 1..%d warps per team, %d slots",
                            g.id, g.teams, g.warps, kMaxWarps, kMaxWarpSlots));
      }
      // slots <= kMaxWarpSlots, so the product below cannot wrap.
      if (g.stack_size_per_warp == 0 || g.stack_size_per_warp > kMaxBytes / slots) {
        return InvalidAt(
            line,
            absl::StrFormat("region %d: stack_size_per_warp x teams x warps must be 1..%d bytes",
                            g.id, kMaxBytes));
      }
      RETURN_IF_ERROR(
          CheckRanges(g, syntax.region_fields, line, absl::StrFormat("region %d: ", g.id)));
    }
  }
  RETURN_IF_ERROR(CheckRanges(s, absl::MakeConstSpan(kDeviceFields), at.device));
  RETURN_IF_ERROR(CheckRanges(s.faults, absl::MakeConstSpan(kFaultFields), at.faults));
  const sim::SimModes& m = c.modes;
  if (!IsStickyError(m.trap_code)) {
    return InvalidAt(at.modes,
                     absl::StrFormat("trap_code %d is not a sticky error (700, 710 or 719)",
                                     static_cast<int>(m.trap_code)));
  }
  RETURN_IF_ERROR(CheckRanges(m, absl::MakeConstSpan(kModeFields), at.modes));
  if (c.schedule.size() > kMaxSchedule) {
    return InvalidAt(at.schedule, "schedule too long");
  }
  return absl::OkStatus();
}

// Checks what a well-formed file or token must satisfy beyond its syntax.
absl::Status Validate(const ReplayRecord& r, const SourceLines& at = {}) {
  if (r.tool_version != kVersion) {
    const absl::Status s = InvalidAt(
        at.tool,
        absl::StrFormat("written by stackcheck %s, this is %s; schedules do not carry across "
                        "versions: find the failure again with this version (stackcheck campaign "
                        "--policy=%s --replay_dir=DIR; the corpus: tests/corpus/regenerate.sh)",
                        Quoted(r.tool_version), kVersion, Quoted(r.policy)));
    return absl::FailedPreconditionError(s.message());
  }
  if (r.policy.empty()) return absl::InvalidArgumentError("missing policy");
  // A name, so that it prints as one word on one line (a token could hold any
  // bytes).
  const bool name_like = r.policy.size() <= kQuotedMaxBytes &&
                         std::all_of(r.policy.begin(), r.policy.end(), [](char ch) {
                           return absl::ascii_isalnum(static_cast<unsigned char>(ch)) ||
                                  ch == '-' || ch == '_' || ch == '.';
                         });
  if (!name_like) {
    return InvalidAt(at.policy,
                     absl::StrFormat("policy '%s' is not a policy name", Quoted(r.policy)));
  }
  if (FindProperty(r.property) == nullptr) {
    return InvalidAt(at.property, absl::StrFormat("unknown property '%s'", Quoted(r.property)));
  }
  return ValidateCase(r.test_case, at);
}

// ---------------------------------------------------------------- text format

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
// out is an error where every field is required (replay files) and keeps
// its default otherwise (scenario files).
class Fields {
 public:
  static absl::StatusOr<Fields> Parse(const Line& l, bool required) {
    Fields f(l.at, required);
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
      if (absl::Status s = Get(f.key, &v, &at, &given); !s.ok()) return s;
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

  Fields(Pos line, bool required) : line_(line), required_(required) {}

  absl::Status Get(absl::string_view key, std::uint64_t* out, Pos* at, bool* given) {
    auto it = values_.find(key);
    *given = it != values_.end();
    if (!*given) {
      if (!required_) return absl::OkStatus();
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
  absl::flat_hash_map<std::string, Value> values_;
};

// A line that holds the fields of `table`.
template <typename T>
absl::Status ParseFields(const Line& l, bool required, absl::Span<const Field<T>> table, T* x) {
  absl::StatusOr<Fields> f = Fields::Parse(l, required);
  if (!f.ok()) return f.status();
  RETURN_IF_ERROR(f->Take(table, x));
  return f->Done();
}

// A host operation's line, over `op` (which holds the defaults of fields a
// scenario file leaves out).
absl::Status ParseOp(const Line& l, bool required, const OpSyntax& syntax, HostOp* op) {
  absl::StatusOr<Fields> f = Fields::Parse(l, required);
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

  // Whether `keyword` starts one of these lines.
  static bool Owns(absl::string_view keyword) {
    return keyword == "modes" || keyword == "device" || keyword == "faults" ||
           keyword == "thread" || FindOp(keyword) != nullptr;
  }

  absl::Status Read(const Line& l) {
    Scenario& s = c_->scenario;
    if (l.keyword == "modes") {
      at_->modes = l.at;
      return ParseFields(l, required_, absl::MakeConstSpan(kModeFields), &c_->modes);
    }
    if (l.keyword == "device") {
      at_->device = l.at;
      return ParseFields(l, required_, absl::MakeConstSpan(kDeviceFields), &s);
    }
    if (l.keyword == "faults") {
      at_->faults = l.at;
      return ParseFields(l, required_, absl::MakeConstSpan(kFaultFields), &s.faults);
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
    RETURN_IF_ERROR(ParseOp(l, required_, *syntax, &op));
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
  Case& c = r.test_case;
  SourceLines at;
  CaseLines case_lines(&c, &at, /*required=*/true);
  bool seen_header = false, seen_end = false;
  absl::flat_hash_set<std::string> seen;  // singleton keywords
  int line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    Line l;
    if (!SplitLine(raw, line_no, /*columns=*/false, &l)) continue;
    auto error = [&l](absl::string_view what) { return ErrorAt(l.at, what); };
    if (seen_end) return error("text after 'end'");
    const absl::string_view keyword = l.keyword;
    const std::vector<absl::string_view>& rest = l.rest;
    if (!seen_header) {
      if (keyword != "stackcheck-replay" || rest.size() != 1) {
        return error("not a stackcheck replay file (expected 'stackcheck-replay <version>')");
      }
      int version = 0;
      if (!absl::SimpleAtoi(rest[0], &version) || version != kReplayFormatVersion) {
        return error(
            absl::StrFormat("replay format version '%s' is not supported (this tool reads %d)",
                            Quoted(rest[0]), kReplayFormatVersion));
      }
      seen_header = true;
      continue;
    }
    const bool singleton = keyword != "thread" && FindOp(keyword) == nullptr;
    if (singleton && !seen.insert(std::string(keyword)).second) {
      return error(absl::StrFormat("'%s' given twice", Quoted(keyword)));
    }
    auto one_word = [&](std::string* out) -> absl::Status {
      if (rest.size() != 1) return error(absl::StrFormat("'%s' takes one value", keyword));
      *out = std::string(rest[0]);
      return absl::OkStatus();
    };
    if (CaseLines::Owns(keyword)) {
      RETURN_IF_ERROR(case_lines.Read(l));
    } else if (keyword == "tool") {
      at.tool = l.at;
      RETURN_IF_ERROR(one_word(&r.tool_version));
    } else if (keyword == "policy") {
      at.policy = l.at;
      RETURN_IF_ERROR(one_word(&r.policy));
    } else if (keyword == "property") {
      at.property = l.at;
      RETURN_IF_ERROR(one_word(&r.property));
    } else if (keyword == "schedule") {
      at.schedule = l.at;
      if (rest.size() > kMaxSchedule) return error("schedule too long");
      for (absl::string_view w : rest) {
        std::uint64_t v;
        if (!absl::SimpleAtoi(w, &v)) {
          return error(
              absl::StrFormat("schedule: expected an unsigned integer, got '%s'", Quoted(w)));
        }
        c.schedule.push_back(v);
      }
    } else if (keyword == "digest") {
      std::string hex;
      RETURN_IF_ERROR(one_word(&hex));
      std::uint64_t d;
      if (!absl::SimpleHexAtoi(hex, &d))
        return error(absl::StrFormat("digest: bad hex '%s'", Quoted(hex)));
      r.digest = d;
    } else if (keyword == "fingerprint") {
      if (rest.empty()) return error("'fingerprint' takes a value (the rest of the line)");
      const absl::string_view line = absl::StripAsciiWhitespace(raw);
      r.fingerprint = std::string(absl::StripAsciiWhitespace(line.substr(keyword.size())));
    } else if (keyword == "end") {
      if (!rest.empty()) return error("'end' takes no values");
      seen_end = true;
    } else {
      return error(absl::StrFormat("unknown keyword '%s'", Quoted(keyword)));
    }
  }
  if (!seen_header) return absl::InvalidArgumentError("empty file: not a stackcheck replay file");
  for (absl::string_view required :
       {"tool", "policy", "property", "modes", "device", "faults", "schedule"}) {
    if (!seen.contains(required)) {
      return absl::InvalidArgumentError(absl::StrFormat("missing '%s' line", required));
    }
  }
  if (!seen_end) return absl::InvalidArgumentError("missing 'end' line: the file is truncated");
  RETURN_IF_ERROR(Validate(r, at));
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

// ---------------------------------------------------------------- token

namespace {

class Writer {
 public:
  void Varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void String(absl::string_view s) {
    Varint(s.size());
    out_.append(s.data(), s.size());
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(absl::string_view in) : in_(in) {}
  bool Varint(std::uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) return false;
      const auto byte = static_cast<unsigned char>(in_.front());
      in_.remove_prefix(1);
      *v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  template <typename T>
  bool Small(T* out, std::uint64_t max) {
    std::uint64_t v;
    if (!Varint(&v) || v > max) return false;
    *out = static_cast<T>(v);
    return true;
  }
  bool String(std::string* s) {
    std::uint64_t n;
    if (!Varint(&n) || n > in_.size()) return false;
    *s = std::string(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool AtEnd() const { return in_.empty(); }
  // Bytes not read yet: a bound on how many more values the input can hold.
  std::size_t Remaining() const { return in_.size(); }

 private:
  absl::string_view in_;
};

template <typename T>
void PutFields(Writer& w, absl::Span<const Field<T>> table, const T& x) {
  for (const Field<T>& f : table) w.Varint(ValueOf(x, f));
}

// False when a value is missing or above what its field holds in a token.
template <typename T>
bool GetFields(Reader& in, absl::Span<const Field<T>> table, T* x) {
  for (const Field<T>& f : table) {
    std::uint64_t v;
    if (!in.Varint(&v) || v > std::min(f.token_max, WidthOf(f).token_max)) return false;
    Store(x, f, v);
  }
  return true;
}

}  // namespace

std::string EncodeReplayToken(const ReplayRecord& r) {
  Writer w;
  const Case& c = r.test_case;
  const Scenario& s = c.scenario;
  w.Varint(kReplayFormatVersion);
  w.String(r.tool_version.empty() ? kVersion : r.tool_version);
  w.String(r.policy);
  w.String(r.property);
  PutFields(w, absl::MakeConstSpan(kModeFields), c.modes);
  PutFields(w, absl::MakeConstSpan(kDeviceFields), s);
  PutFields(w, absl::MakeConstSpan(kFaultFields), s.faults);
  w.Varint(s.threads.size());
  for (const ThreadProgram& t : s.threads) {
    w.Varint(t.ops.size());
    for (const HostOp& op : t.ops) {
      const OpSyntax& syntax = SyntaxOf(op.kind);
      w.Varint(static_cast<std::uint64_t>(op.kind));
      PutFields(w, syntax.fields, op);
      PutFields(w, syntax.region_fields, op.region);
    }
  }
  w.Varint(c.schedule.size());
  for (std::uint64_t choice : c.schedule) w.Varint(choice);
  w.Varint(r.digest.has_value());
  if (r.digest.has_value()) w.Varint(*r.digest);
  return absl::StrCat(kReplayTokenPrefix, absl::WebSafeBase64Escape(w.Take()));
}

absl::StatusOr<ReplayRecord> DecodeReplayToken(absl::string_view token) {
  if (!absl::ConsumePrefix(&token, kReplayTokenPrefix)) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a replay token (expected the prefix '", kReplayTokenPrefix, "')"));
  }
  if (token.size() > kMaxReplayTokenChars) {
    return absl::InvalidArgumentError(
        absl::StrFormat("replay token: longer than %d characters; a replay token is far shorter",
                        kMaxReplayTokenChars));
  }
  std::string bytes;
  if (!absl::WebSafeBase64Unescape(token, &bytes)) {
    return absl::InvalidArgumentError("replay token: not base64url");
  }
  Reader in(bytes);
  ReplayRecord r;
  Case& c = r.test_case;
  Scenario& s = c.scenario;
  s.threads.clear();
  const auto bad = [](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("replay token: bad or truncated ", what));
  };
  std::uint64_t version;
  if (!in.Varint(&version)) return bad("header");
  if (version != kReplayFormatVersion) {
    return absl::InvalidArgumentError(
        absl::StrFormat("replay token format version %d is not supported (this tool reads %d)",
                        version, kReplayFormatVersion));
  }
  if (!in.String(&r.tool_version) || !in.String(&r.policy) || !in.String(&r.property)) {
    return bad("names");
  }
  if (!GetFields(in, absl::MakeConstSpan(kModeFields), &c.modes)) return bad("modes");
  if (!GetFields(in, absl::MakeConstSpan(kDeviceFields), &s) ||
      !GetFields(in, absl::MakeConstSpan(kFaultFields), &s.faults)) {
    return bad("scenario");
  }
  std::uint64_t threads;
  if (!in.Small(&threads, kMaxThreads)) return bad("thread count");
  for (std::uint64_t t = 0; t < threads; ++t) {
    std::uint64_t ops;
    if (!in.Small(&ops, kMaxOpsPerThread) || ops > in.Remaining()) return bad("op count");
    ThreadProgram& program = s.threads.emplace_back();
    for (std::uint64_t i = 0; i < ops; ++i) {
      HostOp op;
      if (!in.Small(&op.kind, std::size(kOps) - 1)) return bad("op kind");
      const OpSyntax& syntax = SyntaxOf(op.kind);
      if (!GetFields(in, syntax.fields, &op) || !GetFields(in, syntax.region_fields, &op.region)) {
        return bad("op");
      }
      program.ops.push_back(op);
    }
  }
  std::uint64_t n;
  // Each value takes at least one byte: a count the input cannot hold is
  // rejected before anything is allocated for it.
  if (!in.Small(&n, kMaxSchedule) || n > in.Remaining()) return bad("schedule");
  c.schedule.resize(n);
  for (std::uint64_t& choice : c.schedule) {
    if (!in.Varint(&choice)) return bad("schedule");
  }
  bool has_digest;
  if (!in.Small(&has_digest, 1)) return bad("digest");
  if (has_digest) {
    std::uint64_t d;
    if (!in.Varint(&d)) return bad("digest");
    r.digest = d;
  }
  if (!in.AtEnd()) return bad("ending (trailing bytes)");
  if (absl::Status st = Validate(r); !st.ok()) {
    return absl::Status(st.code(), absl::StrCat("replay token: ", st.message()));
  }
  return r;
}

absl::StatusOr<ReplayRecord> LoadReplay(absl::string_view arg) {
  if (absl::StartsWith(arg, kReplayTokenPrefix)) return DecodeReplayToken(arg);
  return ReadReplayFile(std::string(arg));
}

}  // namespace stackcheck::properties
