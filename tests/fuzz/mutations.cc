#include "tests/fuzz/mutations.h"

#include <iterator>

namespace stackcheck::fuzz {

std::uint64_t Rng::Next() {
  state_ += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string Mutate(const std::string& seed, const std::vector<std::string>& all, Rng& rng) {
  std::string s = seed;
  const int edits = 1 + static_cast<int>(rng.Below(4));
  for (int e = 0; e < edits; ++e) {
    switch (rng.Below(6)) {
      case 0:  // truncate
        s.resize(rng.Below(s.size() + 1));
        break;
      case 1:  // change a byte
        if (!s.empty()) s[rng.Below(s.size())] = static_cast<char>(rng.Next());
        break;
      case 2:  // insert bytes
        s.insert(rng.Below(s.size() + 1),
                 std::string(1 + rng.Below(8), static_cast<char>(rng.Next())));
        break;
      case 3: {  // splice a piece of another seed
        const std::string& other = all[rng.Below(all.size())];
        const std::size_t from = rng.Below(other.size() + 1);
        s.insert(rng.Below(s.size() + 1), other.substr(from, rng.Below(64)));
        break;
      }
      case 4: {  // an extreme number where a digit was
        const std::size_t at = s.find_first_of("0123456789", rng.Below(s.size() + 1));
        if (at != std::string::npos) {
          static const char* const kNumbers[] = {
              "0",  "18446744073709551615", "18446744073709551616", "4294967296", "999999999999",
              "-1", "17592186044416",       "9223372036854775808",  "4000000000", "65536"};
          s.replace(at, 1, kNumbers[rng.Below(std::size(kNumbers))]);
        }
        break;
      }
      default:  // duplicate a line
        if (const std::size_t nl = s.find('\n', rng.Below(s.size() + 1)); nl != std::string::npos) {
          const std::size_t start = s.rfind('\n', nl == 0 ? 0 : nl - 1);
          const std::size_t b = start == std::string::npos ? 0 : start + 1;
          s.insert(b, s.substr(b, nl + 1 - b));
        }
        break;
    }
  }
  return s;
}

}  // namespace stackcheck::fuzz
