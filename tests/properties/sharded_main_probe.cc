// A trivial suite on the property suites' main(): sharded_main_test.sh runs
// it under good and bad sharding environments.
#include <cstdio>

#include "gtest/gtest.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties::testing {
namespace {

TEST(ShardedMainProbe, PrintsItsShard) {
  std::printf("probe: shard %d of %d\n", CurrentShard().index, CurrentShard().count);
}

}  // namespace
}  // namespace stackcheck::properties::testing
