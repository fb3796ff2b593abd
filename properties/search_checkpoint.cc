#include "properties/search_checkpoint.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/text_digest.h"
#include "core/version.h"
#include "properties/replay_file.h"

namespace stackcheck::properties {
namespace {

// The text, line by line:
//
//   stackcheck checkpoint 4
//   digest fnv1a64:HEX   (core/text_digest.h, over every line after this one)
//   key KEY
//   binary fnv1a64:HEX   (ExecutableDigest of the build that wrote it)
//   exact_memory_ledger 0|1
//   counts EXECUTIONS SECONDS SLEEP_BLOCKED
//   metrics STEPS NUMBERS PREEMPTIONS MAX_CHOICES MAX_PREEMPTIONS
//   known AT_EXECUTION<tab>TOKEN<tab>FINGERPRINT<tab>PROPERTY<tab>MESSAGE   (C-escaped; any number)
//   tree
//   the tree's lines, to the end
constexpr absl::string_view kHeader = "stackcheck checkpoint 4";
// Format 1 had no digest; format 2's candidates lack Footprint::beside, and
// its search ran under a dependence that ordered host-word loads after traps;
// format 3 does not name its build, whose dependence may differ from this
// one's (the rule for harmless launches changed within it).
constexpr absl::string_view kUndigestedHeader = "stackcheck checkpoint 1";
constexpr absl::string_view kEarlierDependenceHeader = "stackcheck checkpoint 2";
constexpr absl::string_view kUnnamedBuildHeader = "stackcheck checkpoint 3";

const char* SelectionName(MonitorSelection::Kind kind) {
  switch (kind) {
    case MonitorSelection::kAll:
      return "all";
    case MonitorSelection::kOnlyKept:
      return "only-kept";
    case MonitorSelection::kNamed:
      return "named";
    case MonitorSelection::kNone:
      return "none";
    case MonitorSelection::kEvery:
      return "every";
  }
  return "?";
}

absl::Status LineError(int line, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrFormat("checkpoint line %d %s", line, why));
}

// The numbers after a line's word, exactly `count` of them.
absl::Status ReadNumbers(absl::string_view line, int line_number, absl::string_view word,
                         std::vector<std::uint64_t>* out, std::size_t count) {
  std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (fields.empty() || fields[0] != word) {
    return LineError(line_number, absl::StrCat("should start with '", word, "'"));
  }
  if (fields.size() != count + 1) {
    return LineError(line_number, absl::StrFormat("should hold %d numbers", count));
  }
  out->resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!absl::SimpleAtoi(fields[i + 1], &(*out)[i])) {
      return LineError(line_number, absl::StrCat("has '", fields[i + 1], "', not a number"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string SearchKey(const ExploreSpec& spec) {
  ReplayRecord record;
  record.policy = spec.policy != nullptr ? spec.policy->name : "";
  record.test_case = spec.test_case;
  record.test_case.schedule.clear();
  return absl::StrCat(
      "stackcheck ", kVersion, ", policy ", record.policy, ", strategy ", spec.strategy,
      ", monitors ", SelectionName(spec.monitors.kind), spec.monitors.names.empty() ? "" : " ",
      absl::StrJoin(spec.monitors.names, "+"), spec.pass_known ? ", passing known bugs" : "",
      spec.pass_unnamed ? ", passing unnamed properties" : "",
      spec.exit_cuts_every_step ? ", exit cuts every step" : "",
      spec.shard.count > 0 ? ", sharded, top of " : ", split after ",
      spec.shard.count > 0 ? ShardChoices(spec)
                           : (spec.split_choices == 0 ? kDefaultSplitChoices : spec.split_choices),
      " choices, case ", EncodeReplayToken(record));
}

std::string ExecutableDigest() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) return "unknown";
  TextDigest digest;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    digest.Add(absl::string_view(buffer, static_cast<std::size_t>(in.gcount())));
  }
  return digest.Text();
}

std::string EncodeCheckpoint(const SearchCheckpoint& c) {
  const ExploreReport& t = c.totals;
  const sim::StrategyMetrics& m = t.metrics;
  std::string out =
      absl::StrCat("key ", absl::CEscape(c.key), "\nbinary ", c.binary, "\nexact_memory_ledger ",
                   c.exact_memory_ledger ? 1 : 0, "\ncounts ", t.executions, " ",
                   static_cast<std::uint64_t>(t.seconds * 1000), " ", t.sleep_blocked, "\nmetrics ",
                   m.actor_choices, " ", m.number_choices, " ", m.preemptions, " ", m.max_choices,
                   " ", m.max_preemptions, "\n");
  for (const Finding& f : t.known_met) {
    absl::StrAppend(&out, "known ", f.at_execution, "\t", absl::CEscape(f.token), "\t",
                    absl::CEscape(f.violation.fingerprint), "\t",
                    absl::CEscape(f.violation.property), "\t", absl::CEscape(f.violation.message),
                    "\n");
  }
  absl::StrAppend(&out, "tree\n", c.tree);
  return absl::StrCat(kHeader, "\ndigest ", TextDigestOf(out), "\n", out);
}

absl::StatusOr<SearchCheckpoint> DecodeCheckpoint(absl::string_view whole) {
  // The header and the digest, then the content the digest covers; the
  // content's line numbers below count from the file's first line.
  std::vector<absl::string_view> head = absl::StrSplit(whole, absl::MaxSplits('\n', 2));
  if (head[0] == kUndigestedHeader) {
    return absl::InvalidArgumentError(
        "the checkpoint was written by an earlier stackcheck, without an integrity digest: "
        "its search cannot be trusted to go on; start it again");
  }
  if (head[0] == kEarlierDependenceHeader) {
    return absl::InvalidArgumentError(
        "the checkpoint was written by an earlier stackcheck, whose steps were ordered by "
        "another dependence: its tree does not match this search; start it again");
  }
  if (head[0] == kUnnamedBuildHeader) {
    return absl::InvalidArgumentError(
        "the checkpoint was written by an earlier stackcheck that did not name its build, whose "
        "steps may have been ordered by another dependence: start it again");
  }
  if (head[0] != kHeader) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a checkpoint: the first line is not '", kHeader, "'"));
  }
  if (head.size() < 3) return absl::InvalidArgumentError("the checkpoint is cut short");
  if (!absl::StartsWith(head[1], "digest ")) return LineError(2, "should be the digest");
  const absl::string_view text = head[2];
  const std::string computed = TextDigestOf(text);
  if (head[1].substr(7) != computed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the checkpoint's content does not match its digest (", head[1].substr(7), " recorded, ",
        computed, " computed): it was damaged or edited since it was written, and is not resumed"));
  }
  // The content from the file's line 3: key, build, ledger mode, counts,
  // metrics, then the known bugs met and the tree.
  SearchCheckpoint c;
  std::vector<absl::string_view> lines = absl::StrSplit(text, absl::MaxSplits('\n', 5));
  if (lines.size() < 6) return absl::InvalidArgumentError("the checkpoint is cut short");
  if (!absl::StartsWith(lines[0], "key ") || !absl::CUnescape(lines[0].substr(4), &c.key)) {
    return LineError(3, "should be the search's key");
  }
  if (!absl::StartsWith(lines[1], "binary ")) return LineError(4, "should be the build's digest");
  c.binary = std::string(lines[1].substr(7));
  std::vector<std::uint64_t> n;
  if (absl::Status s = ReadNumbers(lines[2], 5, "exact_memory_ledger", &n, 1); !s.ok()) return s;
  if (n[0] > 1) return LineError(5, "should say 0 or 1");
  c.exact_memory_ledger = n[0] == 1;
  if (absl::Status s = ReadNumbers(lines[3], 6, "counts", &n, 3); !s.ok()) return s;
  ExploreReport& t = c.totals;
  t.executions = n[0];
  t.seconds = static_cast<double>(n[1]) / 1000;
  t.sleep_blocked = n[2];
  if (absl::Status s = ReadNumbers(lines[4], 7, "metrics", &n, 5); !s.ok()) return s;
  t.metrics.executions = t.executions;
  t.metrics.actor_choices = n[0];
  t.metrics.number_choices = n[1];
  t.metrics.preemptions = n[2];
  t.metrics.max_choices = n[3];
  t.metrics.max_preemptions = n[4];
  // The known bugs met, then the tree.
  absl::string_view rest = lines[5];
  for (int line = 8;; ++line) {
    const std::size_t end = rest.find('\n');
    if (end == absl::string_view::npos) return LineError(line, "should be 'tree' or 'known ...'");
    const absl::string_view here = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    if (here == "tree") break;
    std::vector<absl::string_view> fields = absl::StrSplit(here.substr(here.find(' ') + 1), '\t');
    Finding f;
    if (!absl::StartsWith(here, "known ") || fields.size() != 5 ||
        !absl::SimpleAtoi(fields[0], &f.at_execution) || !absl::CUnescape(fields[1], &f.token) ||
        !absl::CUnescape(fields[2], &f.violation.fingerprint) ||
        !absl::CUnescape(fields[3], &f.violation.property) ||
        !absl::CUnescape(fields[4], &f.violation.message)) {
      return LineError(line, "should be 'tree' or a known bug met");
    }
    absl::StatusOr<ReplayRecord> record = DecodeReplayToken(f.token);
    if (!record.ok()) return LineError(line, record.status().message());
    f.schedule = record->test_case.schedule;
    f.known = true;
    t.known_met.push_back(std::move(f));
  }
  c.tree = std::string(rest);
  return c;
}

std::string RedigestCheckpointForTesting(absl::string_view text) {
  std::vector<absl::string_view> head = absl::StrSplit(text, absl::MaxSplits('\n', 2));
  if (head.size() < 3) return std::string(text);
  return absl::StrCat(head[0], "\ndigest ", TextDigestOf(head[2]), "\n", head[2]);
}

}  // namespace stackcheck::properties
