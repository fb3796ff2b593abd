#include "sim/program/call_record.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"

namespace stackcheck::program {
namespace {

using Kind = CallRecord::Kind;

constexpr std::array<std::pair<Kind, absl::string_view>, 7> kNames = {{
    {Kind::kOpenmp, "openmp"},
    {Kind::kPluginEntry, "plugin-entry"},
    {Kind::kPluginReturn, "plugin-return"},
    {Kind::kDriver, "driver"},
    {Kind::kDriverNote, "driver-note"},
    {Kind::kLibgompMessage, "libgomp-message"},
    {Kind::kFutexWait, "futex-wait"},
}};

}  // namespace

std::string FormatCall(const CallRecord& call) {
  std::string line = call.thread;
  if (!line.empty()) line += ' ';
  absl::StrAppend(&line, call.function, call.detail);
  return line;
}

absl::string_view KindName(Kind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<Kind> KindNamed(absl::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

}  // namespace stackcheck::program
