// Reads Bazel's test-sharding environment for the property suites, strictly:
// a shard the binary cannot honour is an error, never a silent fallback.
#ifndef STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_ENV_H_
#define STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_ENV_H_

#include <string>

#include "absl/status/statusor.h"
#include "tests/properties/test_shard.h"

namespace stackcheck::properties::testing {

// RapidCheck cases per property, over all shards together; also the most
// shards the suites can be split into (each shard runs at least one case).
inline constexpr int kTotalCases = 6000;

// `total` and `index` are TEST_TOTAL_SHARDS and TEST_SHARD_INDEX (null when
// unset). Both unset: one shard. Otherwise both must be decimal integers
// with 1 <= total <= kTotalCases and 0 <= index < total.
absl::StatusOr<TestShard> ShardFromEnvironment(const char* total, const char* index);

// The RC_PARAMS a shard runs with: its own seed and share of the cases,
// added to `rc_params` (the user's RC_PARAMS, null when unset) unless it
// sets them itself or asks to reproduce a failure.
std::string RapidCheckParams(const char* rc_params, const TestShard& shard);

}  // namespace stackcheck::properties::testing

#endif  // STACKCHECK_TESTS_PROPERTIES_TEST_SHARD_ENV_H_
