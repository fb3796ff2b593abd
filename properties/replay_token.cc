// The replay token: a record as one copyable word (a prefix and base64 of a
// varint encoding of the same field tables the text format walks).
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "core/version.h"
#include "properties/replay_fields.h"

namespace stackcheck::properties {

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
bool GetFields(Reader& in, absl::Span<const Field<T>> table, T* x, std::uint64_t version) {
  for (const Field<T>& f : table) {
    if (static_cast<std::uint64_t>(f.since) > version) continue;  // added later: its default
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
  if (version < kOldestReplayFormatVersion || version > kReplayFormatVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "replay token format version %d is not supported (this tool reads %d to %d)", version,
        kOldestReplayFormatVersion, kReplayFormatVersion));
  }
  if (!in.String(&r.tool_version) || !in.String(&r.policy) || !in.String(&r.property)) {
    return bad("names");
  }
  if (!GetFields(in, absl::MakeConstSpan(kModeFields), &c.modes, version)) return bad("modes");
  if (!GetFields(in, absl::MakeConstSpan(kDeviceFields), &s, version) ||
      !GetFields(in, absl::MakeConstSpan(kFaultFields), &s.faults, version)) {
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
      if (!GetFields(in, syntax.fields, &op, version) ||
          !GetFields(in, syntax.region_fields, &op.region, version)) {
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

}  // namespace stackcheck::properties
