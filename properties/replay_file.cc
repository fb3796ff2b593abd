#include "properties/replay_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <utility>
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
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/version.h"
#include "properties/atomic_file.h"
#include "properties/catalogue.h"
#include "properties/quoted_text.h"

namespace stackcheck::properties {
namespace {

// Bounds that keep a hand-edited file from asking the simulator for the absurd.
constexpr std::uint64_t kMaxThreads = 4;
constexpr std::uint64_t kMaxWarpSlots = 4096;     // teams * warps
constexpr std::uint64_t kMaxWarps = 32;           // libgomp's limit per team
constexpr std::uint64_t kMaxDurationNs = 1'000'000'000'000;  // 1000 s virtual
constexpr std::uint64_t kMaxStepBound = 100'000'000;
// Longer than any schedule a file within kMaxReplayFileBytes holds.
constexpr std::size_t kMaxSchedule = 1'000'000;
constexpr std::size_t kMaxOpsPerThread = 10'000;
constexpr std::uint64_t kMaxMappedVars = 64;

// Byte counts (capacity, limits, allocations, a region's stacks) stay below
// this, so that the simulator's sums and roundings of them cannot wrap.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 44;  // 16 TiB

// Where each part of a record was read from, for messages (0: unknown, as in
// a token).
struct SourceLines {
  int tool = 0, policy = 0, property = 0, modes = 0, device = 0, schedule = 0;
  std::vector<int> threads;            // the 'thread' lines
  std::vector<std::vector<int>> ops;   // [thread][op]
};

int LineOf(const std::vector<int>& lines, size_t i) { return i < lines.size() ? lines[i] : 0; }

absl::Status InvalidAt(int line, absl::string_view what) {
  if (line <= 0) return absl::InvalidArgumentError(what);
  return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line, what));
}

// Checks what a well-formed file or token must satisfy beyond its syntax.
absl::Status Validate(const ReplayRecord& r, const SourceLines& at = {}) {
  if (r.tool_version != kVersion) {
    const absl::Status s = InvalidAt(at.tool, absl::StrFormat(
        "written by stackcheck %s, this is %s; schedules do not carry across "
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
    return InvalidAt(at.policy, absl::StrFormat("policy '%s' is not a policy name",
                                                Quoted(r.policy)));
  }
  if (FindProperty(r.property) == nullptr) {
    return InvalidAt(at.property,
                     absl::StrFormat("unknown property '%s'", Quoted(r.property)));
  }
  const Scenario& s = r.test_case.scenario;
  if (s.threads.empty() || s.threads.size() > kMaxThreads) {
    return InvalidAt(LineOf(at.threads, kMaxThreads),
                     absl::StrFormat("%d threads; a scenario has 1 to %d", s.threads.size(),
                                     kMaxThreads));
  }
  absl::flat_hash_set<RegionId> ids;
  for (size_t t = 0; t < s.threads.size(); ++t) {
    if (s.threads[t].ops.size() > kMaxOpsPerThread) {
      return InvalidAt(LineOf(at.threads, t), absl::StrFormat("thread %d: too many ops", t));
    }
    const std::vector<int> no_lines;
    const std::vector<int>& op_lines = t < at.ops.size() ? at.ops[t] : no_lines;
    for (size_t i = 0; i < s.threads[t].ops.size(); ++i) {
      const HostOp& op = s.threads[t].ops[i];
      const int line = LineOf(op_lines, i);
      if (op.kind == HostOp::Kind::kDeviceAlloc && (op.bytes == 0 || op.bytes > kMaxBytes)) {
        return InvalidAt(line, absl::StrFormat("thread %d: alloc of %d bytes (1..%d)", t,
                                               op.bytes, kMaxBytes));
      }
      if (op.kind != HostOp::Kind::kRun) continue;
      const RegionSpec& g = op.region;
      if (g.id == kNoRegion || !ids.insert(g.id).second) {
        return InvalidAt(line, absl::StrFormat(
            "region id %d: ids must be >= 1 and unique", g.id));
      }
      const std::uint64_t slots = static_cast<std::uint64_t>(g.teams) * g.warps;
      if (g.teams == 0 || g.warps == 0 || g.warps > kMaxWarps || slots > kMaxWarpSlots) {
        return InvalidAt(line, absl::StrFormat(
            "region %d: geometry %dx%d outside 1..%d warps per team, %d slots",
            g.id, g.teams, g.warps, kMaxWarps, kMaxWarpSlots));
      }
      // slots <= kMaxWarpSlots, so the product below cannot wrap.
      if (g.stack_size_per_warp == 0 || g.stack_size_per_warp > kMaxBytes / slots) {
        return InvalidAt(line, absl::StrFormat(
            "region %d: stack_size_per_warp x teams x warps must be 1..%d bytes", g.id,
            kMaxBytes));
      }
      if (g.duration_ns > kMaxDurationNs) {
        return InvalidAt(line, absl::StrFormat("region %d: duration too long", g.id));
      }
      if (g.mapped_vars > kMaxMappedVars) {
        return InvalidAt(line, absl::StrFormat("region %d: mapped_vars must be 0..%d",
                                               g.id, kMaxMappedVars));
      }
    }
  }
  if (s.device_capacity == 0 || s.device_capacity > kMaxBytes) {
    return InvalidAt(at.device, absl::StrFormat("device capacity must be 1..%d", kMaxBytes));
  }
  if (s.soft_limit > kMaxBytes) {
    return InvalidAt(at.device, absl::StrFormat("soft_limit must be at most %d", kMaxBytes));
  }
  const SimModes& m = r.test_case.modes;
  if (!IsStickyError(m.trap_code)) {
    return InvalidAt(at.modes, absl::StrFormat(
        "trap_code %d is not a sticky error (700, 710 or 719)", static_cast<int>(m.trap_code)));
  }
  if (m.alloc_granularity == 0 || m.alloc_granularity > kMaxBytes) {
    return InvalidAt(at.modes, absl::StrFormat("alloc_granularity must be 1..%d", kMaxBytes));
  }
  if (m.step_bound == 0 || m.step_bound > kMaxStepBound) {
    return InvalidAt(at.modes, absl::StrFormat("step_bound must be 1..%d", kMaxStepBound));
  }
  if (r.test_case.schedule.size() > kMaxSchedule) {
    return InvalidAt(at.schedule, "schedule too long");
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- text format

// The key=value fields of one line; each must be consumed exactly once.
class Fields {
 public:
  static absl::StatusOr<Fields> Parse(int line, absl::Span<const absl::string_view> words) {
    Fields f(line);
    for (absl::string_view w : words) {
      const size_t eq = w.find('=');
      if (eq == absl::string_view::npos || eq == 0) {
        return f.Error(absl::StrFormat("expected key=value, got '%s'", Quoted(w)));
      }
      if (!f.values_.emplace(w.substr(0, eq), w.substr(eq + 1)).second) {
        return f.Error(absl::StrFormat("field '%s' given twice", Quoted(w.substr(0, eq))));
      }
    }
    return f;
  }

  absl::Status Get(absl::string_view key, std::uint64_t* out) {
    auto it = values_.find(key);
    if (it == values_.end()) return Error(absl::StrFormat("missing field '%s'", key));
    const std::string v = std::move(it->second);  // erase frees the map's copy
    values_.erase(it);
    if (!absl::SimpleAtoi(v, out)) {
      return Error(absl::StrFormat("field '%s': expected an unsigned integer, got '%s'", key,
                                     Quoted(v)));
    }
    return absl::OkStatus();
  }
  absl::Status Get(absl::string_view key, std::uint32_t* out) {
    std::uint64_t v;
    if (absl::Status s = Get(key, &v); !s.ok()) return s;
    if (v > std::numeric_limits<std::uint32_t>::max()) {
      return Error(absl::StrFormat("field '%s': %d is out of range", key, v));
    }
    *out = static_cast<std::uint32_t>(v);
    return absl::OkStatus();
  }
  absl::Status Get(absl::string_view key, bool* out) {
    std::uint64_t v;
    if (absl::Status s = Get(key, &v); !s.ok()) return s;
    if (v > 1) return Error(absl::StrFormat("field '%s': expected 0 or 1, got %d", key, v));
    *out = v == 1;
    return absl::OkStatus();
  }
  // After the Gets: anything left over is a field we do not know.
  absl::Status Done() {
    if (values_.empty()) return absl::OkStatus();
    std::vector<std::string> keys;
    for (const auto& [k, v] : values_) keys.emplace_back(k);
    std::sort(keys.begin(), keys.end());
    return Error(absl::StrFormat("unknown field '%s'", Quoted(keys.front())));
  }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line_, what));
  }

 private:
  explicit Fields(int line) : line_(line) {}
  int line_;
  absl::flat_hash_map<std::string, std::string> values_;
};

#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

absl::Status ParseRegion(Fields& f, RegionSpec* r) {
  RETURN_IF_ERROR(f.Get("id", &r->id));
  RETURN_IF_ERROR(f.Get("teams", &r->teams));
  RETURN_IF_ERROR(f.Get("warps", &r->warps));
  RETURN_IF_ERROR(f.Get("stack_size_per_warp", &r->stack_size_per_warp));
  RETURN_IF_ERROR(f.Get("duration_ns", &r->duration_ns));
  RETURN_IF_ERROR(f.Get("aborts", &r->aborts));
  RETURN_IF_ERROR(f.Get("mapped_vars", &r->mapped_vars));
  return f.Done();
}

}  // namespace

std::string FormatReplayFile(const ReplayRecord& r) {
  const Case& c = r.test_case;
  const Scenario& s = c.scenario;
  std::string out;
  absl::StrAppend(&out, "# stackcheck replay file: `stackcheck replay FILE` re-executes it.\n");
  absl::StrAppend(&out, "stackcheck-replay ", kReplayFormatVersion, "\n");
  absl::StrAppend(&out, "tool ", r.tool_version.empty() ? kVersion : r.tool_version, "\n");
  absl::StrAppend(&out, "policy ", r.policy, "\n");
  absl::StrAppend(&out, "property ", r.property, "\n");
  absl::StrAppendFormat(
      &out,
      "modes free_waits_for_streams=%d serial_callback_thread=%d trap_code=%d "
      "alloc_granularity=%d step_bound=%d\n",
      c.modes.free_waits_for_streams, c.modes.serial_callback_thread,
      static_cast<int>(c.modes.trap_code), c.modes.alloc_granularity, c.modes.step_bound);
  absl::StrAppendFormat(&out, "device capacity=%d soft_limit=%d close_at_end=%d\n",
                        s.device_capacity, s.soft_limit, s.close_at_end);
  absl::StrAppendFormat(
      &out,
      "faults alloc_failure_at_call=%d launch_failure_at_call=%d device_constructors=%d "
      "device_destructors=%d\n",
      s.faults.alloc_failure_at_call, s.faults.launch_failure_at_call,
      s.faults.device_constructors, s.faults.device_destructors);
  for (const ThreadProgram& t : s.threads) {
    absl::StrAppend(&out, "thread\n");
    for (const HostOp& op : t.ops) {
      switch (op.kind) {
        case HostOp::Kind::kRun:
          absl::StrAppendFormat(
              &out,
              "run id=%d teams=%d warps=%d stack_size_per_warp=%d duration_ns=%d aborts=%d "
              "mapped_vars=%d\n",
              op.region.id, op.region.teams, op.region.warps,
              op.region.stack_size_per_warp, op.region.duration_ns, op.region.aborts,
              op.region.mapped_vars);
          break;
        case HostOp::Kind::kDeviceAlloc:
          absl::StrAppendFormat(&out, "alloc slot=%d bytes=%d\n", op.slot, op.bytes);
          break;
        case HostOp::Kind::kDeviceFree:
          absl::StrAppendFormat(&out, "free slot=%d\n", op.slot);
          break;
        case HostOp::Kind::kEnterData:
          absl::StrAppendFormat(&out, "enter slot=%d bytes=%d\n", op.slot, op.bytes);
          break;
        case HostOp::Kind::kExitData:
          absl::StrAppendFormat(&out, "exit slot=%d\n", op.slot);
          break;
        case HostOp::Kind::kUpdate:
          absl::StrAppendFormat(&out, "update slot=%d\n", op.slot);
          break;
      }
    }
  }
  absl::StrAppend(&out, "schedule");
  for (std::uint64_t choice : c.schedule) absl::StrAppend(&out, " ", choice);
  absl::StrAppend(&out, "\n");
  if (r.digest.has_value()) absl::StrAppendFormat(&out, "digest %016x\n", *r.digest);
  absl::StrAppend(&out, "end\n");
  return out;
}

absl::StatusOr<ReplayRecord> ParseReplayFile(absl::string_view text) {
  ReplayRecord r;
  Case& c = r.test_case;
  Scenario& s = c.scenario;
  s.threads.clear();
  bool seen_header = false, seen_end = false;
  absl::flat_hash_set<std::string> seen;  // singleton keywords
  SourceLines at;
  int line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#') continue;
    auto error = [line_no](absl::string_view what) {
      return absl::InvalidArgumentError(absl::StrFormat("line %d: %s", line_no, what));
    };
    if (seen_end) return error("text after 'end'");
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    const absl::string_view keyword = words.front();
    const absl::Span<const absl::string_view> rest = absl::MakeConstSpan(words).subspan(1);
    if (!seen_header) {
      if (keyword != "stackcheck-replay" || rest.size() != 1) {
        return error("not a stackcheck replay file (expected 'stackcheck-replay <version>')");
      }
      int version = 0;
      if (!absl::SimpleAtoi(rest[0], &version) || version != kReplayFormatVersion) {
        return error(absl::StrFormat("replay format version '%s' is not supported (this tool reads %d)",
                                     Quoted(rest[0]), kReplayFormatVersion));
      }
      seen_header = true;
      continue;
    }
    const bool singleton = keyword != "thread" && keyword != "run" && keyword != "alloc" &&
                           keyword != "free" && keyword != "enter" && keyword != "exit" &&
                           keyword != "update";
    if (singleton && !seen.insert(std::string(keyword)).second) {
      return error(absl::StrFormat("'%s' given twice", Quoted(keyword)));
    }
    auto one_word = [&](std::string* out) -> absl::Status {
      if (rest.size() != 1) return error(absl::StrFormat("'%s' takes one value", keyword));
      *out = std::string(rest[0]);
      return absl::OkStatus();
    };
    if (keyword == "tool") {
      at.tool = line_no;
      RETURN_IF_ERROR(one_word(&r.tool_version));
    } else if (keyword == "policy") {
      at.policy = line_no;
      RETURN_IF_ERROR(one_word(&r.policy));
    } else if (keyword == "property") {
      at.property = line_no;
      RETURN_IF_ERROR(one_word(&r.property));
    } else if (keyword == "modes") {
      at.modes = line_no;
      absl::StatusOr<Fields> f = Fields::Parse(line_no, rest);
      if (!f.ok()) return f.status();
      std::uint32_t trap = 0;
      RETURN_IF_ERROR(f->Get("free_waits_for_streams", &c.modes.free_waits_for_streams));
      RETURN_IF_ERROR(f->Get("serial_callback_thread", &c.modes.serial_callback_thread));
      RETURN_IF_ERROR(f->Get("trap_code", &trap));
      RETURN_IF_ERROR(f->Get("alloc_granularity", &c.modes.alloc_granularity));
      RETURN_IF_ERROR(f->Get("step_bound", &c.modes.step_bound));
      RETURN_IF_ERROR(f->Done());
      c.modes.trap_code = static_cast<CuResult>(trap);
    } else if (keyword == "device") {
      at.device = line_no;
      absl::StatusOr<Fields> f = Fields::Parse(line_no, rest);
      if (!f.ok()) return f.status();
      RETURN_IF_ERROR(f->Get("capacity", &s.device_capacity));
      RETURN_IF_ERROR(f->Get("soft_limit", &s.soft_limit));
      RETURN_IF_ERROR(f->Get("close_at_end", &s.close_at_end));
      RETURN_IF_ERROR(f->Done());
    } else if (keyword == "faults") {
      absl::StatusOr<Fields> f = Fields::Parse(line_no, rest);
      if (!f.ok()) return f.status();
      RETURN_IF_ERROR(f->Get("alloc_failure_at_call", &s.faults.alloc_failure_at_call));
      RETURN_IF_ERROR(f->Get("launch_failure_at_call", &s.faults.launch_failure_at_call));
      RETURN_IF_ERROR(f->Get("device_constructors", &s.faults.device_constructors));
      RETURN_IF_ERROR(f->Get("device_destructors", &s.faults.device_destructors));
      RETURN_IF_ERROR(f->Done());
    } else if (keyword == "thread") {
      if (!rest.empty()) return error("'thread' takes no values");
      if (s.threads.size() >= kMaxThreads) {
        return error(absl::StrFormat("more than %d threads", kMaxThreads));
      }
      s.threads.emplace_back();
      at.threads.push_back(line_no);
      at.ops.emplace_back();
    } else if (keyword == "run" || keyword == "alloc" || keyword == "free" ||
               keyword == "enter" || keyword == "exit" || keyword == "update") {
      if (s.threads.empty()) return error(absl::StrFormat("'%s' before any 'thread'", keyword));
      absl::StatusOr<Fields> f = Fields::Parse(line_no, rest);
      if (!f.ok()) return f.status();
      HostOp op;
      if (keyword == "run") {
        op.kind = HostOp::Kind::kRun;
        RETURN_IF_ERROR(ParseRegion(*f, &op.region));
      } else if (keyword == "alloc" || keyword == "enter") {
        op.kind = keyword == "alloc" ? HostOp::Kind::kDeviceAlloc : HostOp::Kind::kEnterData;
        RETURN_IF_ERROR(f->Get("slot", &op.slot));
        RETURN_IF_ERROR(f->Get("bytes", &op.bytes));
        RETURN_IF_ERROR(f->Done());
      } else {
        op.kind = keyword == "free"   ? HostOp::Kind::kDeviceFree
                  : keyword == "exit" ? HostOp::Kind::kExitData
                                      : HostOp::Kind::kUpdate;
        RETURN_IF_ERROR(f->Get("slot", &op.slot));
        RETURN_IF_ERROR(f->Done());
      }
      if (s.threads.back().ops.size() >= kMaxOpsPerThread) {
        return error(absl::StrFormat("more than %d ops in one thread", kMaxOpsPerThread));
      }
      s.threads.back().ops.push_back(op);
      at.ops.back().push_back(line_no);
    } else if (keyword == "schedule") {
      at.schedule = line_no;
      if (rest.size() > kMaxSchedule) return error("schedule too long");
      for (absl::string_view w : rest) {
        std::uint64_t v;
        if (!absl::SimpleAtoi(w, &v)) {
          return error(absl::StrFormat("schedule: expected an unsigned integer, got '%s'", Quoted(w)));
        }
        c.schedule.push_back(v);
      }
    } else if (keyword == "digest") {
      std::string hex;
      RETURN_IF_ERROR(one_word(&hex));
      std::uint64_t d;
      if (!absl::SimpleHexAtoi(hex, &d)) return error(absl::StrFormat("digest: bad hex '%s'", Quoted(hex)));
      r.digest = d;
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
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path));
  }
  if (std::filesystem::is_directory(status)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a replay file"));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a regular file (a replay file is read whole)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  // Reads one byte past the cap, so a file that grew since stat() is caught.
  std::string text(kMaxReplayFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return absl::UnavailableError(absl::StrCat("error reading ", path));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxReplayFileBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: larger than %d bytes; a replay file is far smaller", path, kMaxReplayFileBytes));
  }
  absl::StatusOr<ReplayRecord> r = ParseReplayFile(text);
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

}  // namespace

std::string EncodeReplayToken(const ReplayRecord& r) {
  Writer w;
  const Case& c = r.test_case;
  const Scenario& s = c.scenario;
  w.Varint(kReplayFormatVersion);
  w.String(r.tool_version.empty() ? kVersion : r.tool_version);
  w.String(r.policy);
  w.String(r.property);
  w.Varint(c.modes.free_waits_for_streams);
  w.Varint(c.modes.serial_callback_thread);
  w.Varint(static_cast<std::uint64_t>(c.modes.trap_code));
  w.Varint(c.modes.alloc_granularity);
  w.Varint(c.modes.step_bound);
  w.Varint(s.device_capacity);
  w.Varint(s.soft_limit);
  w.Varint(s.close_at_end);
  w.Varint(s.faults.alloc_failure_at_call);
  w.Varint(s.faults.launch_failure_at_call);
  w.Varint(s.faults.device_constructors);
  w.Varint(s.faults.device_destructors);
  w.Varint(s.threads.size());
  for (const ThreadProgram& t : s.threads) {
    w.Varint(t.ops.size());
    for (const HostOp& op : t.ops) {
      w.Varint(static_cast<std::uint64_t>(op.kind));
      switch (op.kind) {
        case HostOp::Kind::kRun:
          w.Varint(op.region.id);
          w.Varint(op.region.teams);
          w.Varint(op.region.warps);
          w.Varint(op.region.stack_size_per_warp);
          w.Varint(op.region.duration_ns);
          w.Varint(op.region.aborts);
          w.Varint(op.region.mapped_vars);
          break;
        case HostOp::Kind::kDeviceAlloc:
        case HostOp::Kind::kEnterData:
          w.Varint(op.slot);
          w.Varint(op.bytes);
          break;
        case HostOp::Kind::kDeviceFree:
        case HostOp::Kind::kExitData:
        case HostOp::Kind::kUpdate:
          w.Varint(op.slot);
          break;
      }
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
    return absl::InvalidArgumentError(absl::StrFormat(
        "replay token: longer than %d characters; a replay token is far shorter",
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
  constexpr std::uint64_t k32 = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint64_t k64 = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t version;
  if (!in.Varint(&version)) return bad("header");
  if (version != kReplayFormatVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "replay token format version %d is not supported (this tool reads %d)", version,
        kReplayFormatVersion));
  }
  if (!in.String(&r.tool_version) || !in.String(&r.policy) || !in.String(&r.property)) {
    return bad("names");
  }
  int trap = 0;
  if (!in.Small(&c.modes.free_waits_for_streams, 1) ||
      !in.Small(&c.modes.serial_callback_thread, 1) || !in.Small(&trap, 0xffff) ||
      !in.Varint(&c.modes.alloc_granularity) || !in.Varint(&c.modes.step_bound)) {
    return bad("modes");
  }
  c.modes.trap_code = static_cast<CuResult>(trap);
  if (!in.Varint(&s.device_capacity) || !in.Varint(&s.soft_limit) ||
      !in.Small(&s.close_at_end, 1) || !in.Small(&s.faults.alloc_failure_at_call, k32) ||
      !in.Small(&s.faults.launch_failure_at_call, k32) ||
      !in.Small(&s.faults.device_constructors, 1) ||
      !in.Small(&s.faults.device_destructors, 1)) {
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
      if (!in.Small(&op.kind, 5)) return bad("op kind");
      bool ok = true;
      switch (op.kind) {
        case HostOp::Kind::kRun:
          ok = in.Small(&op.region.id, k32) && in.Small(&op.region.teams, k32) &&
               in.Small(&op.region.warps, k32) &&
               in.Small(&op.region.stack_size_per_warp, k64) &&
               in.Small(&op.region.duration_ns, k64) && in.Small(&op.region.aborts, 1) &&
               in.Small(&op.region.mapped_vars, kMaxMappedVars);
          break;
        case HostOp::Kind::kDeviceAlloc:
        case HostOp::Kind::kEnterData:
          ok = in.Small(&op.slot, k32) && in.Varint(&op.bytes);
          break;
        case HostOp::Kind::kDeviceFree:
        case HostOp::Kind::kExitData:
        case HostOp::Kind::kUpdate:
          ok = in.Small(&op.slot, k32);
          break;
      }
      if (!ok) return bad("op");
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
