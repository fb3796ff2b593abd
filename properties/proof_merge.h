// The merge of a sharded proof's parts (properties/proof_part.h): what the
// shards proved together. It claims `exhausted` only when every shard of
// the split is there once, each part whole, all of one search and one
// executable, and their finished units cover the units of the top exactly.
// A part that is damaged, foreign, missing or given twice is refused: the
// merge says what is wrong and claims nothing.
#ifndef STACKCHECK_PROPERTIES_PROOF_MERGE_H_
#define STACKCHECK_PROPERTIES_PROOF_MERGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "properties/finding.h"
#include "properties/proof_part.h"

namespace stackcheck::properties {

struct PartFile {
  std::string name;  // for messages
  std::string text;
};

struct MergedProof {
  std::string key;
  std::string binary;
  std::uint32_t shards = 0;
  std::uint64_t units = 0;  // numbered by the walk of the top
  // Every part whole: every unit explored, so every schedule of the search
  // (up to equivalence) is covered by some shard.
  bool exhausted = false;
  std::uint64_t executions = 0;          // every shard's, walks included
  std::uint64_t walk_executions = 0;     // of those: first executions of others' units
  std::uint64_t private_executions = 0;  // of those: below the shards' escapes
  std::uint64_t escapes = 0;             // the shards' escapes, in all
  std::vector<ProofPart> parts;          // by shard index
  // One line per part that is not whole: its finished units and what
  // stopped it.
  std::vector<std::string> unfinished;
  std::vector<Finding> findings;   // first per fingerprint, by shard
  std::vector<Finding> known_met;  // first per fingerprint, by shard

  // The longest and the mean of the shards' seconds and executions: the
  // balance of the split.
  double LongestSeconds() const;
  double MeanSeconds() const;
  std::uint64_t MostExecutions() const;
  double MeanExecutions() const;
};

absl::StatusOr<MergedProof> MergeProofParts(absl::Span<const PartFile> files);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROOF_MERGE_H_
