// The replay record's parts as tables: every field's key, its member, its
// range and its width. The text format (replay_file.cc), the token
// (replay_token.cc) and the validation (replay_validate.cc) walk the same
// tables; a private header of the replay_file library.
#ifndef STACKCHECK_PROPERTIES_REPLAY_FIELDS_H_
#define STACKCHECK_PROPERTIES_REPLAY_FIELDS_H_

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "properties/replay_file.h"

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

namespace stackcheck::properties {

// Bounds that keep a hand-edited file from asking the simulator for the absurd.
inline constexpr std::uint64_t kMaxThreads = 4;
inline constexpr std::uint64_t kMaxWarpSlots = 4096;                // teams * warps
inline constexpr std::uint64_t kMaxWarps = 32;                      // libgomp's limit per team
inline constexpr std::uint64_t kMaxDurationNs = 1'000'000'000'000;  // 1000 s virtual
inline constexpr std::uint64_t kMaxStepBound = 100'000'000;
// Longer than any schedule a file within kMaxReplayFileBytes holds.
inline constexpr std::size_t kMaxSchedule = 1'000'000;
inline constexpr std::size_t kMaxOpsPerThread = 10'000;
inline constexpr std::uint64_t kMaxMappedVars = 64;

// Byte counts (capacity, limits, allocations, a region's stacks) stay below
// this, so that the simulator's sums and roundings of them cannot wrap.
inline constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 44;  // 16 TiB

inline constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint64_t k32 = std::numeric_limits<std::uint32_t>::max();

// One key=value field of a record part (the modes, the device, the faults, a
// region, a host operation). The text writer and parser, the token encoder
// and decoder and the validation all walk the same table, in its order: that
// order is the order of the fields on a line and in a token. A new field is
// one row at the end of its table, with `since` the new kReplayFormatVersion:
// records of earlier versions lack it and read it as the member's default.
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
  // The format version that added the field.
  int since = kOldestReplayFormatVersion;
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

inline constexpr Field<sim::SimModes> kModeFields[] = {
    {"free_waits_for_streams", &sim::SimModes::free_waits_for_streams},
    {"serial_callback_thread", &sim::SimModes::serial_callback_thread},
    {"trap_code", &sim::SimModes::trap_code},  // a sticky error: checked in Validate
    {"alloc_granularity", &sim::SimModes::alloc_granularity, 1, kMaxBytes},
    {"step_bound", &sim::SimModes::step_bound, 1, kMaxStepBound},
};

inline constexpr Field<Scenario> kDeviceFields[] = {
    {"capacity", &Scenario::device_capacity, 1, kMaxBytes, "device capacity must be $min..$max"},
    {"soft_limit", &Scenario::soft_limit, 0, kMaxBytes, "$key must be at most $max"},
    {"close_at_end", &Scenario::close_at_end},
    {"shipped_target", &Scenario::shipped_target, 0, kNoLimit, "", kNoLimit, 3},
};

inline constexpr Field<FaultPlan> kFaultFields[] = {
    {"alloc_failure_at_call", &FaultPlan::alloc_failure_at_call},
    {"launch_failure_at_call", &FaultPlan::launch_failure_at_call},
    {"device_constructors", &FaultPlan::device_constructors},
    {"device_destructors", &FaultPlan::device_destructors},
};

// Messages are prefixed "region <id>: ". The id, the geometry and the stack
// size are checked together in Validate.
inline constexpr Field<RegionSpec> kRegionFields[] = {
    {"id", &RegionSpec::id},
    {"teams", &RegionSpec::teams},
    {"warps", &RegionSpec::warps},
    {"stack_size_per_warp", &RegionSpec::stack_size_per_warp},
    {"duration_ns", &RegionSpec::duration_ns, 0, kMaxDurationNs, "duration too long"},
    {"aborts", &RegionSpec::aborts},
    {"mapped_vars", &RegionSpec::mapped_vars, 0, kMaxMappedVars, "", kMaxMappedVars},
};

// Messages are prefixed "thread <index>: ".
inline constexpr Field<HostOp> kAllocFields[] = {
    {"slot", &HostOp::slot},
    {"bytes", &HostOp::bytes, 1, kMaxBytes, "alloc of $value bytes ($min..$max)"},
};
inline constexpr Field<HostOp> kEnterFields[] = {
    {"slot", &HostOp::slot},
    {"bytes", &HostOp::bytes},
};
inline constexpr Field<HostOp> kSlotFields[] = {
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

inline constexpr OpSyntax kOps[] = {
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

inline const OpSyntax& SyntaxOf(HostOp::Kind kind) { return kOps[static_cast<std::size_t>(kind)]; }

inline const OpSyntax* FindOp(absl::string_view keyword) {
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

// "line 3" or "line 3, column 7".
std::string Where(Pos at);

// Where each part of a record was read from (all unknown for a token).
struct SourceLines {
  Pos tool, policy, property, modes, device, faults, schedule;
  std::vector<Pos> threads;           // the 'thread' lines
  std::vector<std::vector<Pos>> ops;  // [thread][op]
};

// An InvalidArgument error prefixed with where (nothing when unknown).
absl::Status InvalidAt(Pos at, absl::string_view what);

// Checks what a well-formed case must satisfy beyond its syntax.
absl::Status ValidateCase(const Case& c, const SourceLines& at);

// Checks what a well-formed file or token must satisfy beyond its syntax.
absl::Status Validate(const ReplayRecord& r, const SourceLines& at = {});

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_REPLAY_FIELDS_H_
