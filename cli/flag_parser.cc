#include "cli/flag_parser.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "properties/quoted_text.h"

namespace stackcheck::cli {
namespace {

std::vector<std::string>& Given() {
  static auto* const given = new std::vector<std::string>();
  return *given;
}

absl::Status SetFlag(absl::string_view name, absl::string_view value) {
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag != nullptr) Given().emplace_back(name);
  if (flag == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("unknown flag --", properties::Quoted(name)));
  }
  std::string error;
  if (!flag->ParseFrom(value, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("bad value '", properties::Quoted(value),
                                                   "' for --", name, ": ",
                                                   properties::Quoted(error)));
  }
  return absl::OkStatus();
}

bool IsBoolFlag(absl::CommandLineFlag* flag) { return flag->IsOfType<bool>(); }

}  // namespace

absl::StatusOr<ParsedCommandLine> ParseFlags(int argc, char** argv) {
  Given().clear();
  ParsedCommandLine out;
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (only_positional || !absl::StartsWith(arg, "-") || arg == "-") {
      out.positional.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      out.help = true;
      continue;
    }
    arg.remove_prefix(absl::StartsWith(arg, "--") ? 2 : 1);
    const size_t eq = arg.find('=');
    absl::string_view name = arg.substr(0, eq);
    if (eq != absl::string_view::npos) {
      absl::Status s = SetFlag(name, arg.substr(eq + 1));
      if (!s.ok()) return s;
      continue;
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag != nullptr && IsBoolFlag(flag)) {
      absl::Status s = SetFlag(name, "true");
      if (!s.ok()) return s;
      continue;
    }
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      absl::CommandLineFlag* negated = absl::FindCommandLineFlag(name.substr(2));
      if (negated != nullptr && IsBoolFlag(negated)) {
        absl::Status s = SetFlag(name.substr(2), "false");
        if (!s.ok()) return s;
        continue;
      }
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", properties::Quoted(name)));
    }
    if (i + 1 >= argc) {
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
    }
    absl::Status s = SetFlag(name, argv[++i]);
    if (!s.ok()) return s;
  }
  out.given = Given();
  return out;
}

bool FlagGiven(absl::string_view name) {
  for (const std::string& g : Given()) {
    if (g == name) return true;
  }
  return false;
}

std::vector<std::string> FlagCommands(absl::string_view help,
                                      const std::vector<std::string>& commands) {
  const size_t colon = help.find(':');
  if (colon == absl::string_view::npos) return {};
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(help.substr(0, colon), ", ")) {
    part = part.substr(0, part.find(" --"));
    if (std::find(commands.begin(), commands.end(), part) == commands.end()) return {};
    out.emplace_back(part);
  }
  return out;
}

absl::Status CheckFlagsBelong(absl::string_view command, const ParsedCommandLine& parsed,
                              const std::vector<std::string>& commands) {
  for (const std::string& name : parsed.given) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) continue;
    const std::vector<std::string> owners = FlagCommands(flag->Help(), commands);
    if (owners.empty() || std::find(owners.begin(), owners.end(), command) != owners.end()) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrFormat("--%s has no effect on %s (it is read by %s)",
                                                      name, command, absl::StrJoin(owners, ", ")));
  }
  return absl::OkStatus();
}

}  // namespace stackcheck::cli
