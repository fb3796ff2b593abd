#include "properties/proof_merge.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace stackcheck::properties {
namespace {

absl::Status Refuse(const std::string& why) { return absl::InvalidArgumentError(why); }

// What makes `part` (of file `name`) foreign to the first part: another
// search, another executable, another split.
absl::Status SameSearch(const ProofPart& first, const std::string& first_name,
                        const ProofPart& part, const std::string& name) {
  if (part.key != first.key) {
    return Refuse(absl::StrFormat("%s is a part of another search than %s\n  %s: %s\n  %s: %s",
                                  name, first_name, first_name, first.key, name, part.key));
  }
  if (part.binary != first.binary || part.binary == "unknown") {
    return Refuse(absl::StrFormat(
        "%s was written by another executable (%s) than %s (%s): another build may number the "
        "units otherwise; run every shard with one build",
        name, part.binary, first_name, first.binary));
  }
  if (part.count != first.count) {
    return Refuse(absl::StrFormat("%s is shard %d of %d, but %s is of %d", name, part.index,
                                  part.count, first_name, first.count));
  }
  return absl::OkStatus();
}

// Decodes every part; each must be of the first one's search, executable
// and split.
absl::StatusOr<std::vector<ProofPart>> DecodeParts(absl::Span<const PartFile> files) {
  std::vector<ProofPart> parts;
  for (const PartFile& file : files) {
    absl::StatusOr<ProofPart> part = DecodeProofPart(file.text);
    if (!part.ok()) return Refuse(absl::StrCat(file.name, ": ", part.status().message()));
    if (absl::Status s =
            SameSearch(parts.empty() ? *part : parts[0], files[0].name, *part, file.name);
        !s.ok()) {
      return s;
    }
    parts.push_back(*std::move(part));
  }
  return parts;
}

// The index of each shard's part: every shard once.
absl::StatusOr<std::vector<int>> PartOfEachShard(const std::vector<ProofPart>& parts,
                                                 absl::Span<const PartFile> files) {
  const std::uint32_t count = parts[0].count;
  std::vector<int> part_of(count, -1);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    int& seen = part_of[parts[i].index];
    if (seen >= 0) {
      return Refuse(absl::StrFormat("shard %d of %d is given twice: %s and %s", parts[i].index,
                                    count, files[seen].name, files[i].name));
    }
    seen = static_cast<int>(i);
  }
  std::vector<std::string> missing;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (part_of[k] < 0) missing.push_back(absl::StrCat(k));
  }
  if (!missing.empty()) {
    return Refuse(absl::StrFormat("shard%s %s of %d %s missing: the parts do not cover the search",
                                  missing.size() > 1 ? "s" : "", absl::StrJoin(missing, ", "),
                                  count, missing.size() > 1 ? "are" : "is"));
  }
  return part_of;
}

// The units of the top: the most any part numbered. The walk of the top is
// the same in every shard: the parts that walked it to its end must agree on
// its units.
absl::StatusOr<std::uint64_t> UnitsOfTop(const std::vector<ProofPart>& parts,
                                         const std::vector<int>& part_of,
                                         absl::Span<const PartFile> files) {
  std::uint64_t units = 0;
  int ended = -1;
  for (const int i : part_of) {
    const ProofPart& part = parts[i];
    units = std::max(units, part.units_seen);
    if (!part.walk_ended) continue;
    if (ended >= 0 && part.units_seen != parts[ended].units_seen) {
      return Refuse(absl::StrFormat(
          "%s's walk of the top numbered %d units, %s's %d: the shards did not search the same "
          "tree",
          files[i].name, part.units_seen, files[ended].name, parts[ended].units_seen));
    }
    ended = i;
  }
  return units;
}

// What stopped shard `k`'s part (of file `name`) short of whole.
std::string UnfinishedLine(std::uint32_t k, const std::string& name, const ProofPart& part) {
  return absl::StrFormat(
      "shard %d (%s): %d of %s units finished, %d of %d escapes explored%s", k, name,
      part.finished.size(),
      part.walk_ended ? absl::StrCat(part.OwnedAmong(part.units_seen))
                      : absl::StrCat("at least ", part.OwnedAmong(part.units_seen)),
      part.EscapesExplored(), part.escapes.size(),
      part.stopped_by.empty() ? "" : absl::StrCat(", stopped by ", part.stopped_by));
}

// Adds shard `k`'s part (of file `name`) to the merge: its counts, its
// findings and, when it is not whole, why.
void AddPart(std::uint32_t k, const std::string& name, ProofPart&& part, MergedProof& merged) {
  merged.executions += part.executions;
  merged.walk_executions += part.walk_executions;
  merged.private_executions += part.private_executions;
  merged.escapes += part.escapes.size();
  AppendNewFingerprints(merged.findings, part.findings);
  AppendNewFingerprints(merged.known_met, part.known_met);
  if (!part.Whole()) {
    merged.exhausted = false;
    merged.unfinished.push_back(UnfinishedLine(k, name, part));
  }
  merged.parts.push_back(std::move(part));
}

}  // namespace

absl::StatusOr<MergedProof> MergeProofParts(absl::Span<const PartFile> files) {
  if (files.empty()) return Refuse("no parts to merge");
  absl::StatusOr<std::vector<ProofPart>> decoded = DecodeParts(files);
  if (!decoded.ok()) return decoded.status();
  std::vector<ProofPart>& parts = *decoded;
  absl::StatusOr<std::vector<int>> part_of = PartOfEachShard(parts, files);
  if (!part_of.ok()) return part_of.status();
  absl::StatusOr<std::uint64_t> units = UnitsOfTop(parts, *part_of, files);
  if (!units.ok()) return units.status();
  MergedProof merged;
  merged.key = parts[0].key;
  merged.binary = parts[0].binary;
  merged.shards = parts[0].count;
  merged.units = *units;
  std::uint64_t covered = 0;
  merged.exhausted = true;
  for (std::uint32_t k = 0; k < merged.shards; ++k) {
    const int i = (*part_of)[k];
    covered += parts[i].finished.size();
    AddPart(k, files[i].name, std::move(parts[i]), merged);
  }
  // Whole parts of one walk cover each unit once: their units are theirs
  // alone (index mod count), and each lists all of its own.
  if (merged.exhausted && covered != merged.units) {
    return Refuse(absl::StrFormat("the parts finished %d units of %d", covered, merged.units));
  }
  return merged;
}

double MergedProof::LongestSeconds() const {
  double most = 0;
  for (const ProofPart& p : parts) most = std::max(most, p.seconds);
  return most;
}

double MergedProof::MeanSeconds() const {
  double sum = 0;
  for (const ProofPart& p : parts) sum += p.seconds;
  return parts.empty() ? 0 : sum / static_cast<double>(parts.size());
}

std::uint64_t MergedProof::MostExecutions() const {
  std::uint64_t most = 0;
  for (const ProofPart& p : parts) most = std::max(most, p.executions);
  return most;
}

double MergedProof::MeanExecutions() const {
  return parts.empty() ? 0 : static_cast<double>(executions) / static_cast<double>(parts.size());
}

}  // namespace stackcheck::properties
