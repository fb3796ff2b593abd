#include "properties/expected_verdicts.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/policies/registry.h"
#include "properties/catalogue.h"

namespace stackcheck::properties {

absl::string_view ExpectationName(Expectation e) {
  switch (e) {
    case Expectation::kHolds:
      return "holds";
    case Expectation::kViolated:
      return "violated";
    case Expectation::kAcceptedDeviation:
      return "accepted-deviation";
    case Expectation::kViolatedRarely:
      return "violated-rarely";
  }
  return "?";
}

namespace {

// A policy that declares it accepts asynchronous completion (its PolicyInfo,
// the one source of that fact) accepts every deviation the catalogue lists.
std::vector<ExpectedRow> WithAcceptedDeviations(std::vector<ExpectedRow> rows) {
  for (const PolicyInfo& policy : AllPolicies()) {
    if (!policy.accepts_async_completion) continue;
    for (const PropertyInfo& property : AllProperties()) {
      if (!property.is_deviation) continue;
      rows.push_back({policy.name, property.name, Expectation::kAcceptedDeviation,
                      "run returns once its kernel is enqueued, before it completes: the "
                      "policy declares it accepts asynchronous completion"});
    }
  }
  return rows;
}

}  // namespace

// expected_verdicts.txt, compiled in (BUILD: expected_verdicts_text).
extern const char kExpectedVerdictsText[];

absl::string_view ExpectedVerdictsTable() { return kExpectedVerdictsText; }

const RecordSchema& ExpectedRowSchema() {
  static const auto* const schema = new RecordSchema{"row", {}, {}, {"why"}};
  return *schema;
}

absl::StatusOr<ExpectedRow> ParseExpectedRow(const DataRecord& record, std::string* why) {
  const std::vector<absl::string_view> head = absl::StrSplit(record.head, ' ');
  std::optional<Expectation> expectation;
  for (Expectation e : {Expectation::kHolds, Expectation::kViolated,
                        Expectation::kAcceptedDeviation, Expectation::kViolatedRarely}) {
    if (head.size() == 3 && head[2] == ExpectationName(e)) expectation = e;
  }
  if (!expectation) {
    return absl::InvalidArgumentError(absl::StrCat("expected_verdicts.txt:", record.line,
                                                   ": a row is 'row POLICY PROPERTY EXPECTATION'"));
  }
  *why = record.Get("why");
  return ExpectedRow{head[0], head[1], *expectation, *why};
}

const std::vector<ExpectedRow>& ExpectedRows() {
  // The records and the joined explanations own the text the rows' views
  // point into.
  static const auto* const records = new std::vector<DataRecord>(
      CompiledInRecords("expected_verdicts.txt", kExpectedVerdictsText, ExpectedRowSchema()));
  static auto* const whys = new std::deque<std::string>;
  static const auto* const rows = [] {
    std::vector<ExpectedRow> listed;
    for (const DataRecord& r : *records) {
      absl::StatusOr<ExpectedRow> row = ParseExpectedRow(r, &whys->emplace_back());
      if (!row.ok()) {
        std::fprintf(stderr, "stackcheck: %s\n", std::string(row.status().message()).c_str());
        std::abort();
      }
      listed.push_back(*row);
    }
    return new std::vector<ExpectedRow>(WithAcceptedDeviations(std::move(listed)));
  }();
  return *rows;
}

namespace {

const ExpectedRow* FindRow(absl::string_view policy, absl::string_view property) {
  for (const ExpectedRow& row : ExpectedRows()) {
    if (row.policy == policy && row.property == property) return &row;
  }
  return nullptr;
}

}  // namespace

Expectation ExpectedVerdict(absl::string_view policy, absl::string_view property) {
  const ExpectedRow* row = FindRow(policy, property);
  return row == nullptr ? Expectation::kHolds : row->expectation;
}

absl::string_view ExpectedWhy(absl::string_view policy, absl::string_view property) {
  const ExpectedRow* row = FindRow(policy, property);
  return row == nullptr ? absl::string_view() : row->why;
}

bool VerdictMatches(Expectation expected, bool violated) {
  switch (expected) {
    case Expectation::kHolds:
      return !violated;
    case Expectation::kViolated:
      return violated;
    case Expectation::kAcceptedDeviation:
      return true;
    case Expectation::kViolatedRarely:
      return true;
  }
  return false;
}

}  // namespace stackcheck::properties
