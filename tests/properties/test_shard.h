// Bazel's test sharding protocol for the property suites: which slice of the
// seed space this test process explores. Set by sharded_test_main.cc from
// TEST_SHARD_INDEX / TEST_TOTAL_SHARDS; one shard when run outside Bazel.
#ifndef STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_H_
#define STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_H_

namespace stackcheck::properties::testing {

struct TestShard {
  int index = 0;
  int count = 1;
  // Whether item k (of any enumeration every shard sees in the same order)
  // belongs to this shard.
  bool Owns(int k) const { return k % count == index; }
};

const TestShard& CurrentShard();

}  // namespace stackcheck::properties::testing

#endif  // STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_H_
