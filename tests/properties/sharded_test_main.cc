// main() for the property suites. Bazel shards a test by running the binary
// shard_count times with TEST_TOTAL_SHARDS / TEST_SHARD_INDEX set, and expects
// the binary to touch TEST_SHARD_STATUS_FILE to show it understood. GoogleTest
// would split the test *cases* over shards; the property suites instead want
// every shard to run every test on its own slice of the seed space, so:
//   - the shard is recorded for CurrentShard() and gtest's own sharding is
//     switched off;
//   - RapidCheck gets a per-shard seed and a per-shard share of the cases,
//     unless RC_PARAMS is already set (so RC_PARAMS="reproduce=..." still works).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties::testing {
namespace {

TestShard& MutableShard() {
  static TestShard shard;
  return shard;
}

// RapidCheck cases per property, over all shards together.
constexpr int kTotalCases = 6000;

}  // namespace

const TestShard& CurrentShard() { return MutableShard(); }

}  // namespace stackcheck::properties::testing

int main(int argc, char** argv) {
  using stackcheck::properties::testing::MutableShard;
  using stackcheck::properties::testing::kTotalCases;
  const char* total = std::getenv("TEST_TOTAL_SHARDS");
  const char* index = std::getenv("TEST_SHARD_INDEX");
  int count = 1, shard = 0;
  if (total != nullptr && index != nullptr && absl::SimpleAtoi(total, &count) &&
      absl::SimpleAtoi(index, &shard) && count >= 1 && shard >= 0 && shard < count) {
    MutableShard().count = count;
    MutableShard().index = shard;
  }
  if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE")) {
    if (FILE* f = std::fopen(status, "w")) std::fclose(f);
  }
  unsetenv("GTEST_TOTAL_SHARDS");
  unsetenv("GTEST_SHARD_INDEX");
  if (std::getenv("RC_PARAMS") == nullptr) {
    const std::string params =
        absl::StrFormat("seed=%d max_success=%d verbose_progress=0", 1000 + shard,
                        (kTotalCases + count - 1) / count);
    setenv("RC_PARAMS", params.c_str(), 1);
  }
  std::printf("property suites: shard %d of %d\n", shard, count);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
