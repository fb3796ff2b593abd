// A deterministic, corpus-driven run of the fuzzing entry function: every
// corpus file and its token, then seeded mutations of them (truncations,
// byte changes, insertions, spliced lines, extreme numbers). It runs in the
// ordinary suite; build_libfuzzer.sh runs the same entry under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "properties/replay_file.h"
#include "tests/fuzz/replay_input_fuzz.h"

namespace stackcheck::fuzz {
namespace {

constexpr char kCorpusDir[] = "tests/corpus";
constexpr int kMutationsPerSeed = 1500;

void Feed(const std::string& input) {
  FuzzReplayInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

// The corpus files, and the token of each (without its prefix, as libFuzzer
// would find it, and with it).
std::vector<std::string> Seeds() {
  std::vector<std::string> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpusDir)) {
    if (entry.path().extension() != ".replay") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    seeds.push_back(text.str());
    absl::StatusOr<properties::ReplayRecord> r = properties::ParseReplayFile(text.str());
    if (r.ok()) {
      const std::string token = properties::EncodeReplayToken(*r);
      seeds.push_back(token);
      seeds.push_back(token.substr(properties::kReplayTokenPrefix.size()));
    }
  }
  std::sort(seeds.begin(), seeds.end());
  return seeds;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t Below(std::size_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  std::uint64_t state_;
};

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
        s.insert(rng.Below(s.size() + 1), std::string(1 + rng.Below(8), static_cast<char>(rng.Next())));
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
          static const char* const kNumbers[] = {"0", "18446744073709551615",
                                                 "18446744073709551616", "4294967296",
                                                 "999999999999", "-1", "17592186044416"};
          s.replace(at, 1, kNumbers[rng.Below(7)]);
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

TEST(ReplayInputFuzzSmoke, SeedsPass) {
  const std::vector<std::string> seeds = Seeds();
  ASSERT_GE(seeds.size(), 10u) << "the corpus is missing";
  for (const std::string& s : seeds) Feed(s);
  for (const char* s : {"", "sc1.", "sc1.AAAA", "stackcheck-replay 1\n", "end\n", "\n\n\n"}) Feed(s);
}

TEST(ReplayInputFuzzSmoke, MutationsKeepEveryPromise) {
  const std::vector<std::string> seeds = Seeds();
  ASSERT_FALSE(seeds.empty());
  Rng rng(20250101);
  for (const std::string& seed : seeds) {
    for (int i = 0; i < kMutationsPerSeed; ++i) Feed(Mutate(seed, seeds, rng));
  }
}

}  // namespace
}  // namespace stackcheck::fuzz
