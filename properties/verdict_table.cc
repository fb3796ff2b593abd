#include "properties/verdict_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::properties {
namespace {

absl::string_view StateName(VerdictCell::State s) {
  switch (s) {
    case VerdictCell::State::kNotRun:
      return "not-run";
    case VerdictCell::State::kHolds:
      return "holds";
    case VerdictCell::State::kViolated:
      return "violated";
    case VerdictCell::State::kUnavailable:
      return "unavailable";
  }
  return "?";
}

std::string CellText(const VerdictCell& c) {
  switch (c.state) {
    case VerdictCell::State::kNotRun:
      return c.message.empty() ? "-" : absl::StrCat("not checked: ", c.message);
    case VerdictCell::State::kHolds:
      return absl::StrFormat("holds over %d executions", c.executions);
    case VerdictCell::State::kViolated:
      return absl::StrCat("VIOLATED (", c.size, ")", c.replay.empty() ? "" : " ", c.replay);
    case VerdictCell::State::kUnavailable:
      return absl::StrCat("not checked: ", c.message);
  }
  return "?";
}

// The worst judgement of a row's cells.
Judgement JudgeRow(const VerdictRow& row, Reach reach) {
  Judgement worst = Judgement::kAgrees;
  for (const VerdictCell& cell : row.cells) {
    worst = std::max(worst, JudgeCell(row, cell, reach));
  }
  return worst;
}

}  // namespace

VerdictRow& VerdictTable::Row(const std::string& policy, const std::string& property) {
  for (VerdictRow& r : rows) {
    if (r.policy == policy && r.property == property) return r;
  }
  VerdictRow& r = rows.emplace_back();
  r.policy = policy;
  r.property = property;
  r.expected = ExpectedVerdict(policy, property);
  r.cells.resize(columns.size());
  return r;
}

Judgement JudgeCell(const VerdictRow& row, const VerdictCell& cell, Reach reach) {
  switch (cell.state) {
    case VerdictCell::State::kNotRun:
      return Judgement::kAgrees;
    case VerdictCell::State::kUnavailable:
      return Judgement::kMismatch;
    case VerdictCell::State::kViolated:
      return VerdictMatches(row.expected, true) ? Judgement::kAgrees : Judgement::kMismatch;
    case VerdictCell::State::kHolds:
      if (VerdictMatches(row.expected, false)) return Judgement::kAgrees;
      return reach == Reach::kFixedScenarios ? Judgement::kNotReached : Judgement::kMismatch;
  }
  return Judgement::kMismatch;
}

absl::string_view JudgementName(Judgement judgement) {
  switch (judgement) {
    case Judgement::kAgrees:
      return "agrees";
    case Judgement::kNotReached:
      return "not-reached";
    case Judgement::kMismatch:
      return "mismatch";
  }
  return "?";
}

bool AllMatch(const VerdictTable& table) {
  for (const VerdictRow& row : table.rows) {
    if (JudgeRow(row, table.reach) == Judgement::kMismatch) return false;
  }
  return true;
}

std::string FormatVerdictTable(const VerdictTable& table) {
  size_t policy_w = 6, property_w = 8;
  for (const VerdictRow& r : table.rows) {
    policy_w = std::max(policy_w, r.policy.size());
    property_w = std::max(property_w, r.property.size());
  }
  std::string out =
      absl::StrFormat("%-*s  %-*s  %-18s", policy_w, "policy", property_w, "property", "expected");
  for (const std::string& column : table.columns) absl::StrAppend(&out, "  ", column);
  absl::StrAppend(&out, "\n");
  for (const VerdictRow& r : table.rows) {
    absl::StrAppendFormat(&out, "%-*s  %-*s  %-18s", policy_w, r.policy, property_w, r.property,
                          ExpectationName(r.expected));
    for (size_t i = 0; i < r.cells.size(); ++i) {
      absl::StrAppend(&out, i == 0 ? "  " : "  |  ", CellText(r.cells[i]));
    }
    switch (JudgeRow(r, table.reach)) {
      case Judgement::kAgrees:
        break;
      case Judgement::kNotReached:
        absl::StrAppend(&out, "  <-- not reached");
        break;
      case Judgement::kMismatch:
        absl::StrAppend(&out, "  <-- MISMATCH");
        break;
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

void WriteVerdictTableJson(const VerdictTable& table, JsonWriter& json) {
  json.BeginArray();
  for (const VerdictRow& r : table.rows) {
    json.BeginObject();
    json.Key("policy").String(r.policy);
    json.Key("property").String(r.property);
    json.Key("expected").String(ExpectationName(r.expected));
    for (size_t i = 0; i < r.cells.size() && i < table.columns.size(); ++i) {
      const VerdictCell& c = r.cells[i];
      json.Key(table.columns[i]).BeginObject();
      json.Key("verdict").String(StateName(c.state));
      json.Key("executions").Uint(c.executions);
      if (c.state == VerdictCell::State::kViolated) {
        json.Key("shrunk_size").String(c.size);
        json.Key("replay").String(c.replay);
      }
      if (!c.message.empty()) json.Key("message").String(c.message);
      json.EndObject();
    }
    const Judgement judgement = JudgeRow(r, table.reach);
    json.Key("judgement").String(JudgementName(judgement));
    json.Key("matches").Bool(judgement != Judgement::kMismatch);
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace stackcheck::properties
