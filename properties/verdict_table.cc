#include "properties/verdict_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::properties {
namespace {

absl::string_view StateName(VerdictCell::State s) {
  switch (s) {
    case VerdictCell::State::kNotRun: return "not-run";
    case VerdictCell::State::kHolds: return "holds";
    case VerdictCell::State::kViolated: return "violated";
    case VerdictCell::State::kUnavailable: return "unavailable";
  }
  return "?";
}

std::string CellText(const VerdictCell& c) {
  switch (c.state) {
    case VerdictCell::State::kNotRun: return "-";
    case VerdictCell::State::kHolds:
      return absl::StrFormat("holds over %d executions", c.executions);
    case VerdictCell::State::kViolated:
      return absl::StrCat("VIOLATED (", c.size, ")", c.replay.empty() ? "" : " ", c.replay);
    case VerdictCell::State::kUnavailable: return absl::StrCat("not checked: ", c.message);
  }
  return "?";
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

bool CellMatches(const VerdictRow& row, const VerdictCell& cell) {
  switch (cell.state) {
    case VerdictCell::State::kNotRun: return true;
    case VerdictCell::State::kUnavailable: return false;
    case VerdictCell::State::kHolds: return VerdictMatches(row.expected, false);
    case VerdictCell::State::kViolated: return VerdictMatches(row.expected, true);
  }
  return false;
}

bool AllMatch(const VerdictTable& table) {
  for (const VerdictRow& row : table.rows) {
    for (const VerdictCell& cell : row.cells) {
      if (!CellMatches(row, cell)) return false;
    }
  }
  return true;
}

std::string FormatVerdictTable(const VerdictTable& table) {
  size_t policy_w = 6, property_w = 8;
  for (const VerdictRow& r : table.rows) {
    policy_w = std::max(policy_w, r.policy.size());
    property_w = std::max(property_w, r.property.size());
  }
  std::string out = absl::StrFormat("%-*s  %-*s  %-18s", policy_w, "policy", property_w,
                                    "property", "expected");
  for (const std::string& column : table.columns) absl::StrAppend(&out, "  ", column);
  absl::StrAppend(&out, "\n");
  for (const VerdictRow& r : table.rows) {
    absl::StrAppendFormat(&out, "%-*s  %-*s  %-18s", policy_w, r.policy, property_w,
                          r.property, ExpectationName(r.expected));
    bool mismatch = false;
    for (size_t i = 0; i < r.cells.size(); ++i) {
      absl::StrAppend(&out, i == 0 ? "  " : "  |  ", CellText(r.cells[i]));
      mismatch |= !CellMatches(r, r.cells[i]);
    }
    if (mismatch) absl::StrAppend(&out, "  <-- MISMATCH");
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
    bool matches = true;
    for (size_t i = 0; i < r.cells.size() && i < table.columns.size(); ++i) {
      const VerdictCell& c = r.cells[i];
      matches &= CellMatches(r, c);
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
    json.Key("matches").Bool(matches);
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace stackcheck::properties
