// `check` as one shard of a proof, and the merge of the shards' parts
// (properties/proof_part.h, properties/proof_merge.h):
//
//   check ... --shard_count N --shard_index I --part F [--resume F]
//       explores the units of shard I of N (the top of the search: the nodes
//       before --split_choices choices; unless told, deep enough for about 32
//       units per shard, properties/shard_top.h) and writes its part to
//       F, whole or not; --resume F goes on from a part an earlier run of the
//       same shard wrote, skipping the units it finished. `whole yes` says
//       the part covers every unit of the shard. A shard has no default cap
//       on its executions (check's 10,000,000 would stop a long proof's
//       shards one by one).
//   check --merge PART...
//       says what the parts prove together: `exhausted yes` only when every
//       shard is there once, whole, of one search and one build; a part that
//       is damaged, foreign, missing or given twice is refused (exit 2).
//
// properties/stackcheck_proof.bzl makes one such search a sharded Bazel test.
#ifndef STACKCHECK_CLI_CHECK_SHARD_H_
#define STACKCHECK_CLI_CHECK_SHARD_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/report_sink.h"
#include "properties/explore.h"
#include "properties/proof_part.h"

namespace stackcheck::cli {

// Whether --shard_count (or another shard flag) was given.
bool ShardRequested();
// Whether --merge was given.
bool MergeRequested();

struct ShardRun {
  std::string part_path;                        // --part
  std::optional<properties::ProofPart> before;  // --resume's
};

// The shard flags into `spec` (and --exact_memory_ledger, which any search
// takes); `resume_path`: --resume's file, or "".
absl::StatusOr<ShardRun> ShardFromFlags(properties::ExploreSpec& spec,
                                        const std::string& resume_path);

// After the shard's run: writes its part and reports what it covered.
// Returns whether writing the part failed.
bool KeepPart(const properties::ExploreSpec& spec, const properties::ExploreReport& r,
              const ShardRun& run, ReportSink& out);

// `check --merge PART...` (no search flags: the parts name their search):
// the exit status.
int RunMerge(const std::vector<std::string>& part_paths);

}  // namespace stackcheck::cli

#endif  // STACKCHECK_CLI_CHECK_SHARD_H_
