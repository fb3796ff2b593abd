// Seeded, deterministic mutations of text inputs for the fuzz smoke tests:
// truncations, byte changes, insertions, pieces spliced from other seeds,
// extreme numbers where a digit was, duplicated lines. The same seed gives the
// same mutants on every machine, so a failure names a reproducible input.
#ifndef STACKCHECK_TESTS_FUZZ_MUTATIONS_H_
#define STACKCHECK_TESTS_FUZZ_MUTATIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stackcheck::fuzz {

// splitmix64: small, seedable, the same everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next();
  std::size_t Below(std::size_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  std::uint64_t state_;
};

// One to four edits of `seed`; `all` supplies pieces to splice in.
std::string Mutate(const std::string& seed, const std::vector<std::string>& all, Rng& rng);

}  // namespace stackcheck::fuzz

#endif  // STACKCHECK_TESTS_FUZZ_MUTATIONS_H_
