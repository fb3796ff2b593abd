// The regression corpus (tests/corpus): every known bug has a shrunk replay
// file, and replaying each one violates its recorded property again, with the
// fingerprint the file records, which the known-bugs table lists for it.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policies/registry.h"
#include "gtest/gtest.h"
#include "properties/catalogue.h"
#include "properties/expected_verdicts.h"
#include "properties/explore.h"
#include "properties/known_bugs.h"
#include "properties/replay_file.h"
#include "sim/strategies/strict_sequence_strategy.h"

namespace stackcheck::properties {
namespace {

constexpr char kCorpusDir[] = "tests/corpus";

std::map<std::string, ReplayRecord> LoadCorpus() {
  std::map<std::string, ReplayRecord> corpus;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpusDir)) {
    if (entry.path().extension() != ".replay") continue;
    absl::StatusOr<ReplayRecord> r = ReadReplayFile(entry.path().string());
    EXPECT_TRUE(r.ok()) << r.status();
    if (r.ok()) corpus.emplace(entry.path().filename().string(), *std::move(r));
  }
  return corpus;
}

bool IsBug(Expectation e) {
  return e == Expectation::kViolated || e == Expectation::kViolatedRarely;
}

TEST(Corpus, OneFilePerKnownBugAndNothingElse) {
  const std::map<std::string, ReplayRecord> corpus = LoadCorpus();
  for (const ExpectedRow& row : ExpectedRows()) {
    if (!IsBug(row.expectation)) continue;
    const std::string name = absl::StrCat(row.policy, ".", row.property, ".replay");
    EXPECT_EQ(corpus.count(name), 1u)
        << "no corpus file for a known bug: " << name << " (tests/corpus/regenerate.sh)";
  }
  for (const auto& [name, record] : corpus) {
    EXPECT_EQ(name, absl::StrCat(record.policy, ".", record.property, ".replay"));
    EXPECT_TRUE(IsBug(ExpectedVerdict(record.policy, record.property)))
        << name << " pins a violation the expected-verdicts table does not expect";
  }
}

TEST(Corpus, EveryFileReproducesItsViolation) {
  const std::map<std::string, ReplayRecord> corpus = LoadCorpus();
  ASSERT_FALSE(corpus.empty());
  for (const auto& [name, record] : corpus) {
    SCOPED_TRACE(name);
    const PolicyInfo* policy = FindPolicy(record.policy);
    ASSERT_NE(policy, nullptr) << "unknown policy " << record.policy;
    const PropertyInfo* const checked[] = {FindProperty(record.property)};
    // As `stackcheck replay` runs it: every schedule value in range, none left.
    sim::StrictSequenceStrategy schedule(record.test_case.schedule);
    absl::StatusOr<Execution> e = Execute(record.test_case, *policy, checked, &schedule);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_TRUE(schedule.Finish().ok()) << schedule.status();
    ASSERT_TRUE(e->violation.has_value()) << "the violation did not recur";
    EXPECT_EQ(e->violation->property, record.property) << e->violation->message;
    EXPECT_EQ(e->violation->fingerprint, record.fingerprint)
        << "the replay shows another bug than the one the file records";
    // The exact trace is a stronger claim than the violation; it moves whenever
    // the engine logs differently, so a drift is reported, not failed.
    if (record.digest.has_value() && *record.digest != e->digest) {
      std::printf("note: %s: trace digest drifted (the violation still recurs)\n", name.c_str());
    }
  }
}

TEST(Corpus, EveryFileIsAKnownBugRowAndEveryRowItsFile) {
  const std::map<std::string, ReplayRecord> corpus = LoadCorpus();
  for (const auto& [name, record] : corpus) {
    SCOPED_TRACE(name);
    ASSERT_FALSE(record.fingerprint.empty()) << "the file records no fingerprint";
    bool listed = false;
    for (const KnownBug* bug : KnownBugsOf(record.policy, record.property)) {
      listed |= bug->fingerprint == record.fingerprint && bug->corpus == name;
    }
    EXPECT_TRUE(listed) << "properties/known_bugs.txt has no record 'bug " << record.policy
                        << "' with 'fingerprint " << record.fingerprint << "' and 'corpus " << name
                        << "'";
  }
  for (const KnownBug& bug : KnownBugs()) {
    EXPECT_TRUE(IsBug(ExpectedVerdict(bug.policy, FingerprintProperty(bug.fingerprint))))
        << bug.fingerprint << ": a known bug of " << bug.policy
        << " on a property the expected-verdicts table says it keeps";
    if (bug.corpus.empty()) continue;
    EXPECT_EQ(corpus.count(std::string(bug.corpus)), 1u) << "no corpus file " << bug.corpus;
  }
}

}  // namespace
}  // namespace stackcheck::properties
