// Bazel's test sharding protocol for the property suites: which slice of the
// seed space this test process explores. Set by sharded_test_main.cc from
// TEST_SHARD_INDEX / TEST_TOTAL_SHARDS; one shard when run outside Bazel.
#ifndef STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_H_
#define STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_H_

namespace stackcheck::properties::testing {

// Under AddressSanitizer the simulator runs more than ten times slower (every
// fiber switch is announced to it, and the scheduler's answer cache is off):
// the exhaustive suites then run a sample of their items (OwnsSampled), so
// that each shard still fits its timeout.
#if defined(STACKCHECK_ASAN) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif

struct TestShard {
  int index = 0;
  int count = 1;
  // Whether item k (of any enumeration every shard sees in the same order)
  // belongs to this shard.
  bool Owns(int k) const { return k % count == index; }
  // The same when only every `every`-th item runs: those items are dealt to
  // the shards in turn, so the shards stay even.
  bool OwnsSampled(int k, int every) const {
    return k % every == 0 && (k / every) % count == index;
  }
};

const TestShard& CurrentShard();

}  // namespace stackcheck::properties::testing

#endif  // STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_H_
