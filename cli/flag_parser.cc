#include "cli/flag_parser.h"

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace stackcheck::cli {
namespace {

absl::Status SetFlag(absl::string_view name, absl::string_view value) {
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
  std::string error;
  if (!flag->ParseFrom(value, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad value '", value, "' for --", name, ": ", error));
  }
  return absl::OkStatus();
}

bool IsBoolFlag(absl::CommandLineFlag* flag) { return flag->IsOfType<bool>(); }

}  // namespace

absl::StatusOr<ParsedCommandLine> ParseFlags(int argc, char** argv) {
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
    if (flag == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    if (i + 1 >= argc) {
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
    }
    absl::Status s = SetFlag(name, argv[++i]);
    if (!s.ok()) return s;
  }
  return out;
}

}  // namespace stackcheck::cli
