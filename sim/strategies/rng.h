// A small, fast, seedable PRNG for the randomised strategies.
//
// Strategies draw one number per scheduling point and the engine aims at
// 10M+ steps per second, so this must cost a few nanoseconds and, above all,
// give the same stream for the same seed on every machine and standard
// library (std::mt19937 + std::uniform_int_distribution does not promise the
// latter). xoshiro256** seeded through splitmix64, as its authors recommend.
#ifndef STACKCHECK_SIM_STRATEGIES_RNG_H_
#define STACKCHECK_SIM_STRATEGIES_RNG_H_

#include <cstdint>

namespace stackcheck::sim {

// One splitmix64 step: a good 64-bit mixer on its own, used to expand seeds.
inline std::uint64_t SplitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) { Seed(seed); }

  void Seed(std::uint64_t seed) {
    std::uint64_t sm = seed;
    for (std::uint64_t& word : s_) word = SplitMix64(sm);
  }

  std::uint64_t Next() {
    const std::uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), n >= 1; unbiased (Lemire's multiply-and-reject).
  std::uint64_t Below(std::uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(Next()) * n;
    std::uint64_t low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(Next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

 private:
  static std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_STRATEGIES_RNG_H_
