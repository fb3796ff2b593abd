// Flags every command reads. Defined once here because an ABSL_FLAG may be
// defined in only one translation unit of the binary.
#ifndef STACKCHECK_CLI_COMMON_FLAGS_H_
#define STACKCHECK_CLI_COMMON_FLAGS_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "properties/json_writer.h"

// Print machine-readable JSON on stdout instead of text.
ABSL_DECLARE_FLAG(bool, json);
// campaign, check: worker threads.
ABSL_DECLARE_FLAG(int, jobs);
// The policies to explore (campaign: comma-separated, default all; check:
// exactly one).
ABSL_DECLARE_FLAG(std::string, policy);
// The seed of the explored cases and schedules (campaign, check).
ABSL_DECLARE_FLAG(std::uint64_t, seed);
// The wall-clock budget in seconds (campaign: 60 by default; check: none).
ABSL_DECLARE_FLAG(double, time_budget_s);
// Executions to run (campaign: per policy; exec: schedules of the program).
ABSL_DECLARE_FLAG(std::uint64_t, executions);
// campaign, check: which shard of how many this process is.
ABSL_DECLARE_FLAG(int, shard_index);
ABSL_DECLARE_FLAG(int, shard_count);

namespace stackcheck::cli {

// Prints a command's finished --json object on stdout, one line.
void PrintJson(const properties::JsonWriter& json);

// Ends a command's --json object with its exit status, prints it on stdout
// and returns `rc`.
int PrintJsonResult(properties::JsonWriter& json, int rc);

// Whether a --json object was printed (by the two functions above).
bool JsonPrinted();

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_COMMON_FLAGS_H_
