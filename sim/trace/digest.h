// A stable 64-bit digest of an execution's event list.
//
// Two executions with the same scenario and schedule must produce the same
// events, so comparing digests is the cheap determinism check (and what replay
// files record). The hash is FNV-1a over every field of every event, each
// written out explicitly in little-endian order, so it does not depend on the
// struct's padding, on the host's endianness, or on the compiler.
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
    Mix(e.time_ns, 8);
    Mix(e.actor, 4);
    Mix(static_cast<std::uint64_t>(e.kind), 1);
    Mix(e.a, 4);
    Mix(e.b, 4);
    Mix(e.c, 4);
    Mix(e.d, 4);
    Mix(e.x, 8);
    Mix(e.y, 8);
  }
  std::uint64_t value() const { return hash_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 14695981039346656037ull;
  static constexpr std::uint64_t kPrime = 1099511628211ull;

  // Feeds the low `bytes` bytes of `v`, least significant first.
  void Mix(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      hash_ ^= (v >> (8 * i)) & 0xffu;
      hash_ *= kPrime;
    }
  }

  std::uint64_t hash_ = kOffsetBasis;
};

inline std::uint64_t Digest(absl::Span<const Event> events) {
  EventDigest digest;
  for (const Event& e : events) digest.Add(e);
  return digest.value();
}

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_TRACE_DIGEST_H_
