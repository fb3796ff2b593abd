// Vector-clock arithmetic shared by the search's happens-before
// (strategies/happens_before.h) and the data-race monitor: a clock is
// `width` 32-bit entries, width a multiple of 4, each entry counting one
// actor's steps or releases in one execution, so below 2^31. Four entries
// go at a time, compared as signed lanes; a clock is a few dozen bytes, and
// a memmove call per copy cost more than the copy.
#ifndef STACKCHECK_SIM_VECTOR_CLOCK_H_
#define STACKCHECK_SIM_VECTOR_CLOCK_H_

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stackcheck::sim::vector_clock {

using Entry = std::uint32_t;

// into = max(into, from), entry by entry.
inline void Join(Entry* into, const Entry* from, std::uint32_t width) {
#if defined(__SSE2__)
  for (std::uint32_t q = 0; q < width; q += 4) {
    auto* out = reinterpret_cast<__m128i*>(into + q);
    const __m128i a = _mm_loadu_si128(out);
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + q));
    const __m128i b_greater = _mm_cmpgt_epi32(b, a);
    _mm_storeu_si128(out,
                     _mm_or_si128(_mm_and_si128(b_greater, b), _mm_andnot_si128(b_greater, a)));
  }
#else
  for (std::uint32_t q = 0; q < width; ++q) into[q] = std::max(into[q], from[q]);
#endif
}

inline void Copy(Entry* into, const Entry* from, std::uint32_t width) {
#if defined(__SSE2__)
  for (std::uint32_t q = 0; q < width; q += 4) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(into + q),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + q)));
  }
#else
  std::copy(from, from + width, into);
#endif
}

inline void Clear(Entry* clock, std::uint32_t width) {
#if defined(__SSE2__)
  for (std::uint32_t q = 0; q < width; q += 4) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(clock + q), _mm_setzero_si128());
  }
#else
  std::fill(clock, clock + width, 0);
#endif
}

// Whether some entry of `later` exceeds the same entry of `clock`.
inline bool AnyAfter(const Entry* later, const Entry* clock, std::uint32_t width) {
#if defined(__SSE2__)
  __m128i any = _mm_setzero_si128();
  for (std::uint32_t q = 0; q < width; q += 4) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(later + q));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(clock + q));
    any = _mm_or_si128(any, _mm_cmpgt_epi32(a, c));
  }
  return _mm_movemask_epi8(any) != 0;
#else
  for (std::uint32_t q = 0; q < width; ++q) {
    if (later[q] > clock[q]) return true;
  }
  return false;
#endif
}

}  // namespace stackcheck::sim::vector_clock

#endif  // STACKCHECK_SIM_VECTOR_CLOCK_H_
