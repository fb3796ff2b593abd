// A stable 64-bit digest of an execution's event list.
//
// Two executions with the same scenario and schedule must produce the same
// events, so comparing digests is the cheap determinism check (and what replay
// files record). The hash is FNV-1a over every field of every event, each
// written out explicitly in little-endian order, so it does not depend on the
// struct's padding, on the host's endianness, or on the compiler.
//
// kSharedAccess events are left out: they record what program code did
// between scheduling points, which the events around them already determine,
// and declaring more state shared must not move the digests replay files
// record.
#ifndef STACKCHECK_SIM_TRACE_DIGEST_H_
#define STACKCHECK_SIM_TRACE_DIGEST_H_

#include <cstdint>

#include "absl/types/span.h"
#include "sim/event.h"

namespace stackcheck::sim {

// Incremental form, for an engine that hashes events as it appends them.
class EventDigest {
 public:
  void Add(const Event& e) {
    if (e.kind == EventKind::kSharedAccess || e.kind == EventKind::kAllocGaveUp ||
        e.kind == EventKind::kMutexPassEnd) {
      return;
    }
    Mix(e.time_ns);
    Mix(static_cast<std::uint64_t>(e.actor) << 8 | static_cast<std::uint64_t>(e.kind));
    // Every kind's words alike: the payloads give them meaning, not the hash.
    const EventWords w = e.words();
    Mix(static_cast<std::uint64_t>(w.a) << 32 | w.b);
    Mix(static_cast<std::uint64_t>(w.c) << 32 | w.d);
    Mix(w.x);
    Mix(w.y);
  }
  std::uint64_t value() const { return hash_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 14695981039346656037ull;
  static constexpr std::uint64_t kPrime = 1099511628211ull;

  // One FNV-1a step over a whole 64-bit word. Both the xor and the
  // multiplication by an odd prime are bijections, so changing any one field
  // always changes the digest.
  void Mix(std::uint64_t word) { hash_ = (hash_ ^ word) * kPrime; }

  std::uint64_t hash_ = kOffsetBasis;
};

inline std::uint64_t Digest(absl::Span<const Event> events) {
  EventDigest digest;
  for (const Event& e : events) digest.Add(e);
  return digest.value();
}

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_TRACE_DIGEST_H_
