#include "cli/common_flags.h"

#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"

ABSL_FLAG(int, jobs, 0,
          "campaign, check: worker threads (campaign: 0 = one per core; check: disjoint "
          "subtrees of one search, not given = one search on this thread)");
ABSL_FLAG(bool, json, false, "print machine-readable JSON on stdout instead of text");
ABSL_FLAG(std::string, policy, "",
          "campaign, check: policies to explore, comma-separated (campaign: default "
          "all; check: one)");
ABSL_FLAG(std::uint64_t, seed, 1,
          "campaign, check, exec: seed of the explored cases and schedules");
ABSL_FLAG(double, time_budget_s, 60,
          "campaign, check, exec: wall-clock budget in seconds (campaign: 60 by default, "
          "shrinking included; check and exec: none by default, and a search it stops says "
          "`exhausted no`)");
ABSL_FLAG(
    std::uint64_t, executions, 0,
    "campaign, exec, bench exec: executions (campaign: per policy; 0 = as many as --time_budget_s "
    "allows, and a fixed count makes the result independent of --jobs and shards; "
    "exec: 0 = 100; bench exec: 0 = 200)");

ABSL_FLAG(int, shard_index, 0,
          "campaign, check: this process's shard, 0-based (see --shard_count)");
ABSL_FLAG(int, shard_count, 1,
          "campaign, check: how many shards share the work (campaign: executions i with i % "
          "shard_count == shard_index; check: the units of a proof's top, see --part)");

namespace stackcheck::cli {

namespace {
bool json_printed = false;
}  // namespace

void PrintJson(const properties::JsonWriter& json) {
  absl::PrintF("%s\n", json.str());
  json_printed = true;
}

int PrintJsonResult(properties::JsonWriter& json, int rc) {
  json.Key("exit_status").Int(rc);
  json.EndObject();
  PrintJson(json);
  return rc;
}

bool JsonPrinted() { return json_printed; }

}  // namespace stackcheck::cli
