// What a replay record must satisfy beyond its syntax, wherever it was read
// from: ranges, geometry, the version and the names.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/version.h"
#include "properties/catalogue.h"
#include "properties/quoted_text.h"
#include "properties/replay_fields.h"

namespace stackcheck::properties {
namespace {

Pos LineOf(const std::vector<Pos>& lines, size_t i) { return i < lines.size() ? lines[i] : Pos{}; }

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

}  // namespace

std::string Where(Pos at) {
  if (at.column <= 0) return absl::StrFormat("line %d", at.line);
  return absl::StrFormat("line %d, column %d", at.line, at.column);
}

absl::Status InvalidAt(Pos at, absl::string_view what) {
  if (at.line <= 0) return absl::InvalidArgumentError(what);
  return absl::InvalidArgumentError(absl::StrCat(Where(at), ": ", what));
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
absl::Status Validate(const ReplayRecord& r, const SourceLines& at) {
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

}  // namespace stackcheck::properties
