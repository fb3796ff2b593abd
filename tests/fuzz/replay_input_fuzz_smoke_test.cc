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
#include "tests/fuzz/mutations.h"
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

TEST(ReplayInputFuzzSmoke, SeedsPass) {
  const std::vector<std::string> seeds = Seeds();
  ASSERT_GE(seeds.size(), 10u) << "the corpus is missing";
  for (const std::string& s : seeds) Feed(s);
  for (const char* s : {"", "sc1.", "sc1.AAAA", "stackcheck-replay 1\n", "end\n", "\n\n\n"})
    Feed(s);
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
