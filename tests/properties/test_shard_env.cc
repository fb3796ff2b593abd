#include "tests/properties/test_shard_env.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace stackcheck::properties::testing {
namespace {

// A shard variable's value, decimal digits only (no sign, no spaces).
bool ParseCount(const char* text, int* out) {
  const absl::string_view s(text);
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleAtoi(s, out);
}

std::string Shown(const char* text) { return absl::CEscape(absl::string_view(text).substr(0, 32)); }

// Whether the space-separated RC_PARAMS `params` sets `key`.
bool Sets(absl::string_view params, absl::string_view key) {
  for (absl::string_view word : absl::StrSplit(params, ' ', absl::SkipEmpty())) {
    if (absl::StartsWith(word, key) && word.size() > key.size() && word[key.size()] == '=') {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<TestShard> ShardFromEnvironment(const char* total, const char* index) {
  TestShard shard;
  if (total == nullptr && index == nullptr) return shard;
  if (total == nullptr || index == nullptr) {
    return absl::InvalidArgumentError(
        "TEST_TOTAL_SHARDS and TEST_SHARD_INDEX must be set together");
  }
  if (!ParseCount(total, &shard.count) || shard.count < 1 || shard.count > kTotalCases) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "TEST_TOTAL_SHARDS='%s' must be an integer from 1 to %d", Shown(total), kTotalCases));
  }
  if (!ParseCount(index, &shard.index) || shard.index >= shard.count) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "TEST_SHARD_INDEX='%s' must be an integer from 0 to %d (TEST_TOTAL_SHARDS=%d)",
        Shown(index), shard.count - 1, shard.count));
  }
  return shard;
}

std::string RapidCheckParams(const char* rc_params, const TestShard& shard) {
  std::string params = rc_params == nullptr ? "" : rc_params;
  if (Sets(params, "reproduce")) return params;
  std::vector<std::string> added;
  if (!Sets(params, "seed")) added.push_back(absl::StrFormat("seed=%d", 1000 + shard.index));
  if (!Sets(params, "max_success")) {
    added.push_back(
        absl::StrFormat("max_success=%d", (kTotalCases + shard.count - 1) / shard.count));
  }
  if (!Sets(params, "verbose_progress")) added.push_back("verbose_progress=0");
  for (const std::string& a : added) {
    if (!params.empty()) params += ' ';
    params += a;
  }
  return params;
}

}  // namespace stackcheck::properties::testing
