// One shard's part of a sharded proof (ExploreSpec::Shard), kept as text so
// that shards run anywhere - one machine, a Bazel test shard each, a remote
// executor - and their parts are merged afterwards (properties/proof_merge.h).
//
// A part says which search it belongs to (the key: policy, case, strategy,
// monitors, the top's size, the ledger mode), which executable ran it (a
// digest of its bytes: another build may number the units differently),
// which shard of how many it is, how many units the shards' common walk of
// the top numbered and whether that walk ended, the units of this shard it
// finished, the escapes it met (options at top nodes only its own races
// called for, which it explores itself: sim/strategies/shard_plan.h) and
// whether it explored them, its counts, and its findings with their replay
// tokens, and, when it stopped mid-walk, the search's stack. Its second line
// is a digest of the rest: a damaged or edited part is refused, never
// merged. A part is also what a stopped shard goes on from: run again with
// it, the shard goes on from the execution after its last one.
#ifndef STACKCHECK_PROPERTIES_PROOF_PART_H_
#define STACKCHECK_PROPERTIES_PROOF_PART_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "properties/explore.h"
#include "properties/finding.h"
#include "properties/search_checkpoint.h"
#include "sim/strategies/shard_plan.h"

namespace stackcheck::properties {

struct ProofPart {
  std::string key;     // PartKey of the spec it ran
  std::string binary;  // ExecutableDigest of the process that ran it
  std::uint32_t index = 0;
  std::uint32_t count = 0;
  std::uint64_t units_seen = 0;         // numbered by the walk of the top so far
  bool walk_ended = false;              // then units_seen is every unit
  std::vector<std::uint64_t> finished;  // this shard's units, ascending
  std::vector<sim::ShardProgress::Escape> escapes;
  std::uint64_t executions = 0;          // every run of this shard, in all
  std::uint64_t walk_executions = 0;     // of those: first executions of others' units
  std::uint64_t private_executions = 0;  // of those: below its escapes
  double seconds = 0;                    // every run of this shard, in all
  std::uint64_t sleep_blocked = 0;
  // Why the last run ended before the part was whole ("" if it did not):
  // "a violation", "time_budget_s", "max_executions", "a signal", ...
  std::string stopped_by;
  // Where the shard's search stood when the run stopped mid-walk (ShardProgress::
  // stack): its next run goes on from there. Empty once the walk ended.
  std::string stack;
  std::vector<Finding> findings;   // violations that ended an execution
  std::vector<Finding> known_met;  // known bugs passed (--only_kept)

  // This shard's units among the first `units`.
  std::uint64_t OwnedAmong(std::uint64_t units) const;
  // The walk ended, every unit of this shard is finished, and every escape
  // it met explored.
  bool Whole() const;
  std::uint64_t EscapesExplored() const;
  // What a later run of this shard goes on from.
  sim::ShardProgress Progress() const { return {finished, escapes, stack}; }
};

// The search a part belongs to: SearchKey, and whether every allocation
// was ordered (footprints differ, and so may the units).
std::string PartKey(const ExploreSpec& spec);

// The part of `report`, a run of `spec`; `before`: the part of this shard's
// earlier runs it went on from (its counts and findings are carried).
ProofPart PartOf(const ExploreSpec& spec, const ExploreReport& report, absl::string_view stopped_by,
                 const ProofPart* before);

std::string EncodeProofPart(const ProofPart& part);
// InvalidArgument naming the line that does not fit, or saying that the
// content does not match its digest.
absl::StatusOr<ProofPart> DecodeProofPart(absl::string_view text);

// `text` with its digest recomputed over what follows it: for tests that
// damage a part's content on purpose to reach the checks beneath.
std::string RedigestProofPartForTesting(absl::string_view text);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROOF_PART_H_
