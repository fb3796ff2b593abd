// main() for the property suites. Bazel shards a test by running the binary
// shard_count times with TEST_TOTAL_SHARDS / TEST_SHARD_INDEX set, and expects
// the binary to touch TEST_SHARD_STATUS_FILE to show it understood. GoogleTest
// would split the test *cases* over shards; the property suites instead want
// every shard to run every test on its own slice of the seed space, so:
//   - the shard is recorded for CurrentShard() and gtest's own sharding is
//     switched off;
//   - RapidCheck gets a per-shard seed and a per-shard share of the cases,
//     added to RC_PARAMS unless it sets them (RC_PARAMS="reproduce=..." works).
// A shard environment it cannot honour (see test_shard_env.h) fails the run
// before the status file is touched.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "tests/properties/test_shard.h"
#include "tests/properties/test_shard_env.h"

namespace stackcheck::properties::testing {
namespace {

TestShard& MutableShard() {
  static TestShard shard;
  return shard;
}

}  // namespace

const TestShard& CurrentShard() { return MutableShard(); }

}  // namespace stackcheck::properties::testing

int main(int argc, char** argv) {
  using stackcheck::properties::testing::MutableShard;
  namespace shards = stackcheck::properties::testing;
  const absl::StatusOr<shards::TestShard> shard = shards::ShardFromEnvironment(
      std::getenv("TEST_TOTAL_SHARDS"), std::getenv("TEST_SHARD_INDEX"));
  if (!shard.ok()) {
    std::fprintf(stderr, "property suites: cannot run this shard: %s\n",
                 std::string(shard.status().message()).c_str());
    return 1;
  }
  MutableShard() = *shard;
  if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE")) {
    if (FILE* f = std::fopen(status, "w")) std::fclose(f);
  }
  unsetenv("GTEST_TOTAL_SHARDS");
  unsetenv("GTEST_SHARD_INDEX");
  const std::string params = shards::RapidCheckParams(std::getenv("RC_PARAMS"), *shard);
  setenv("RC_PARAMS", params.c_str(), 1);
  std::printf("property suites: shard %d of %d (RC_PARAMS=%s)\n", shard->index, shard->count,
              params.c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
