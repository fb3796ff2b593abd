#include "cli/check_shard.h"

#include <cstdint>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command.h"
#include "cli/common_flags.h"
#include "cli/flag_parser.h"
#include "properties/atomic_file.h"
#include "properties/proof_merge.h"
#include "properties/shard_top.h"

ABSL_FLAG(std::string, part, "",
          "check --shard_count: write the shard's part (what it covered, for --merge) here");
ABSL_FLAG(bool, merge, false,
          "check --merge PART...: what the parts of a sharded proof prove together");
ABSL_FLAG(bool, exact_memory_ledger, false,
          "check: order every allocation in footprints (as a search does by itself once an "
          "execution outgrew the device's memory); every shard of a proof must agree");

namespace stackcheck::cli {
namespace {

// A part is small: its finished units as ranges, its findings.
constexpr std::size_t kMaxPartBytes = std::size_t{64} << 20;

std::string StoppedBy(const properties::ExploreSpec& spec, const properties::ExploreReport& r) {
  if (!r.status.ok()) return absl::StrCat("an error: ", r.status.message());
  if (!r.findings.empty()) return "a violation";
  if (r.interrupted) return "a signal";
  if (r.out_of_time) return "time_budget_s";
  if (spec.max_executions != 0 && r.executions >= spec.max_executions) return "max_executions";
  return "";
}

absl::StatusOr<properties::ProofPart> ReadPart(const std::string& path) {
  absl::StatusOr<std::string> text = properties::ReadWholeFile(path, kMaxPartBytes, "proof part");
  if (!text.ok()) return text.status();
  absl::StatusOr<properties::ProofPart> part = properties::DecodeProofPart(*text);
  if (!part.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", part.status().message()));
  return part;
}

}  // namespace

bool ShardRequested() {
  return FlagGiven("shard_count") || FlagGiven("shard_index") || FlagGiven("part");
}

bool MergeRequested() { return absl::GetFlag(FLAGS_merge); }

absl::StatusOr<ShardRun> ShardFromFlags(properties::ExploreSpec& spec,
                                        const std::string& resume_path) {
  spec.exact_memory_ledger = absl::GetFlag(FLAGS_exact_memory_ledger);
  ShardRun run;
  if (!ShardRequested()) return run;
  const int count = absl::GetFlag(FLAGS_shard_count);
  const int index = absl::GetFlag(FLAGS_shard_index);
  if (count < 1 || count > 100000) {
    return absl::InvalidArgumentError(
        "--shard_count must be 1..100000 (with --shard_index, --part)");
  }
  if (index < 0 || index >= count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--shard_index must be below --shard_count (0..%d)", count - 1));
  }
  run.part_path = absl::GetFlag(FLAGS_part);
  if (run.part_path.empty()) {
    return absl::InvalidArgumentError(
        "--shard_count needs --part FILE: where the shard's part goes");
  }
  if (absl::Status s = properties::CheckWritable(run.part_path, "--part"); !s.ok()) return s;
  // A shard is a proof's part: no default cap on its executions (a budget
  // is --time_budget_s or --max_executions, and a part goes on from there).
  if (!FlagGiven("max_executions")) spec.max_executions = 0;
  spec.shard.count = static_cast<std::uint32_t>(count);
  spec.shard.index = static_cast<std::uint32_t>(index);
  if (!FlagGiven("split_choices")) {
    // Every shard walks the top alike, and so chooses the same depth.
    absl::StatusOr<std::size_t> top = properties::ChooseShardTop(spec);
    if (!top.ok()) return top.status();
    spec.split_choices = *top;
  }
  if (resume_path.empty()) return run;
  absl::StatusOr<properties::ProofPart> before = ReadPart(resume_path);
  if (!before.ok())
    return absl::InvalidArgumentError(absl::StrCat("--resume ", before.status().message()));
  if (before->key != properties::PartKey(spec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resume ", resume_path, " is a part of another search\n  it ran:  ", before->key,
        "\n  this is: ", properties::PartKey(spec)));
  }
  if (before->index != spec.shard.index || before->count != spec.shard.count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--resume %s is shard %d of %d, and this run is shard %d of %d",
                        resume_path, before->index, before->count, index, count));
  }
  if (before->binary != properties::ExecutableDigest()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resume ", resume_path,
        " was written by another build of stackcheck: it may number the units otherwise; run "
        "the shard again from its start"));
  }
  spec.shard.before = before->Progress();
  run.before = *std::move(before);
  return run;
}

bool KeepPart(const properties::ExploreSpec& spec, const properties::ExploreReport& r,
              const ShardRun& run, ReportSink& out) {
  const properties::ProofPart part =
      properties::PartOf(spec, r, StoppedBy(spec, r), run.before ? &*run.before : nullptr);
  out.Field("shard", absl::StrFormat("%d of %d", part.index, part.count));
  out.Field("top_choices", static_cast<std::uint64_t>(properties::ShardChoices(spec)));
  out.Field("units", part.units_seen);
  out.Field("units_of_shard_finished", static_cast<std::uint64_t>(part.finished.size()));
  out.Field("units_of_shard", part.OwnedAmong(part.units_seen));
  out.Field("walk_executions", part.walk_executions);
  out.Field("escapes", static_cast<std::uint64_t>(part.escapes.size()));
  out.Field("private_executions", part.private_executions);
  out.Field("whole", part.Whole());
  if (absl::Status s =
          properties::WriteFileAtomically(run.part_path, properties::EncodeProofPart(part));
      !s.ok()) {
    absl::FPrintF(stderr, "stackcheck: --part: %s\n", s.message());
    return true;
  }
  out.Field("part", run.part_path);
  return false;
}

int RunMerge(const std::vector<std::string>& part_paths) {
  for (const char* flag : {"policy", "scenario", "scenario_file", "strategy", "shard_count",
                           "shard_index", "part", "resume", "jobs", "enumerate"}) {
    if (FlagGiven(flag)) {
      return UsageError(absl::StrCat("check --merge takes the parts alone (--", flag,
                                     " does not apply): what they searched is in them"));
    }
  }
  if (part_paths.empty())
    return UsageError("check --merge takes the parts' files: check --merge PART...");
  std::vector<properties::PartFile> files;
  for (const std::string& path : part_paths) {
    absl::StatusOr<std::string> text = properties::ReadWholeFile(path, kMaxPartBytes, "proof part");
    if (!text.ok()) return UsageError(absl::StrCat("--merge: ", text.status().message()));
    files.push_back({path, *std::move(text)});
  }
  absl::StatusOr<properties::MergedProof> merged = properties::MergeProofParts(files);
  if (!merged.ok()) return UsageError(absl::StrCat("--merge: ", merged.status().message()));
  ReportSink out(absl::GetFlag(FLAGS_json), "merge");
  out.Note(absl::StrFormat("merge: %d parts of: %s", merged->shards, merged->key));
  out.Field("key", merged->key).Field("binary", merged->binary);
  out.Field("shards", static_cast<std::uint64_t>(merged->shards));
  out.Field("units", merged->units);
  out.Field("executions", merged->executions);
  out.Field("walk_executions", merged->walk_executions);
  out.Field("private_executions", merged->private_executions);
  out.Field("escapes", merged->escapes);
  out.Field("exhausted", merged->exhausted);
  for (const std::string& line : merged->unfinished) out.Note(absl::StrCat("unfinished ", line));
  out.BeginRows("shards");
  for (const properties::ProofPart& p : merged->parts) {
    out.BeginRow(absl::StrCat(p.index))
        .Number("executions", static_cast<double>(p.executions), "%.0f")
        .Number("walk_executions", static_cast<double>(p.walk_executions), "%.0f")
        .Number("private_executions", static_cast<double>(p.private_executions), "%.0f")
        .Number("units_finished", static_cast<double>(p.finished.size()), "%.0f")
        .Number("seconds", p.seconds, "%.2f")
        .EndRow();
  }
  out.EndRows();
  const double mean_s = merged->MeanSeconds();
  out.Seconds("longest_shard_seconds", merged->LongestSeconds());
  out.Seconds("mean_shard_seconds", mean_s);
  out.Number("longest_over_mean_seconds", mean_s > 0 ? merged->LongestSeconds() / mean_s : 0,
             "%.2f");
  const double mean_e = merged->MeanExecutions();
  out.Number("most_over_mean_executions",
             mean_e > 0 ? static_cast<double>(merged->MostExecutions()) / mean_e : 0, "%.2f");
  bool fresh = false;
  for (const properties::Finding& f : merged->findings) {
    fresh = fresh || !f.known;
    out.Note(absl::StrFormat("violation %s (%s): %s\nfingerprint %s: %s\nreplay %s",
                             f.violation.property, f.known ? "known" : "NEW", f.violation.message,
                             f.known ? "known" : "NEW", f.violation.fingerprint, f.token));
  }
  if (merged->findings.empty()) out.Note("violation none");
  for (const properties::Finding& f : merged->known_met) {
    out.Note(absl::StrCat("known_met ", f.violation.fingerprint, "\nknown_met_replay ", f.token));
  }
  if (out.json()) {
    std::vector<std::string> violations, tokens, known;
    for (const properties::Finding& f : merged->findings) {
      violations.push_back(f.violation.fingerprint);
      tokens.push_back(f.token);
    }
    for (const properties::Finding& f : merged->known_met) known.push_back(f.violation.fingerprint);
    out.List("violations", violations).List("violation_replays", tokens).List("known_met", known);
  }
  return out.Finish(fresh ? kExitMismatch : kExitOk);
}

}  // namespace stackcheck::cli
