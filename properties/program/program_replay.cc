#include "properties/program/program_replay.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/text_digest.h"
#include "sim/program/exec_options.h"

namespace stackcheck::properties {
namespace {

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("exec replay, line ", line, ": ", what));
}

}  // namespace

std::string FormatExecReplay(const ExecReplay& r) {
  std::string text = absl::StrCat(kExecReplayHeader, "\nprogram ", r.program, "\n");
  if (!r.program_id.empty()) absl::StrAppend(&text, "program_id ", r.program_id, "\n");
  for (const std::string& a : r.args) absl::StrAppend(&text, "arg ", a, "\n");
  absl::StrAppend(&text, "faults ", r.faults, "\nschedule ", absl::StrJoin(r.schedule, ","), "\n",
                  absl::StrFormat("digest %016x\n", r.digest), "property ", r.property,
                  "\nfingerprint ", r.fingerprint, "\nmessage ", r.message, "\n");
  return text;
}

std::string ExecReplayToken(const ExecReplay& r) {
  return absl::StrCat(kExecTokenPrefix, absl::WebSafeBase64Escape(FormatExecReplay(r)));
}

absl::StatusOr<ExecReplay> ParseExecReplay(absl::string_view text) {
  ExecReplay r;
  int number = 0;
  bool header = false, program = false, schedule = false, digest = false;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++number;
    if (number == 1) {
      if (line != kExecReplayHeader) {
        return LineError(1, absl::StrCat("expected '", kExecReplayHeader, "'"));
      }
      header = true;
      continue;
    }
    const std::size_t space = line.find(' ');
    const absl::string_view key = line.substr(0, space);
    const absl::string_view value =
        space == absl::string_view::npos ? absl::string_view() : line.substr(space + 1);
    if (key == "program") {
      if (value.empty()) return LineError(number, "empty program");
      r.program = std::string(value);
      program = true;
    } else if (key == "program_id") {
      if (!absl::StartsWith(value, "fnv1a64:") || value.size() != 8 + 16) {
        return LineError(number, "program_id is fnv1a64: and 16 hex digits");
      }
      std::uint64_t ignored = 0;
      if (!absl::SimpleHexAtoi(value.substr(8), &ignored)) {
        return LineError(number, "program_id is fnv1a64: and 16 hex digits");
      }
      r.program_id = std::string(value);
    } else if (key == "arg") {
      r.args.emplace_back(value);
    } else if (key == "faults") {
      if (absl::StatusOr<program::FaultPlan> plan = program::ParseFaults(value); !plan.ok()) {
        return LineError(number, plan.status().message());
      }
      r.faults = std::string(value);
    } else if (key == "schedule") {
      for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        std::uint64_t v = 0;
        if (!absl::SimpleAtoi(item, &v)) {
          return LineError(number, absl::StrCat("not a number in the schedule: '", item, "'"));
        }
        r.schedule.push_back(v);
      }
      schedule = true;
    } else if (key == "digest") {
      if (!absl::SimpleHexAtoi(value, &r.digest)) return LineError(number, "digest is hex");
      digest = true;
    } else if (key == "property") {
      r.property = std::string(value);
    } else if (key == "fingerprint") {
      r.fingerprint = std::string(value);
    } else if (key == "message") {
      r.message = std::string(value);
    } else {
      return LineError(number, absl::StrCat("unknown key '", key, "'"));
    }
  }
  if (!header) return LineError(1, "empty file");
  if (!program || !schedule || !digest) {
    return absl::InvalidArgumentError("exec replay: program, schedule and digest are required");
  }
  return r;
}

absl::StatusOr<std::string> ProgramIdentity(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  TextDigest digest;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    digest.Add(absl::string_view(chunk, static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) return absl::UnavailableError(absl::StrCat("error reading ", path));
  return digest.Text();
}

bool IsExecReplay(const std::string& path_or_token) {
  if (absl::StartsWith(path_or_token, kExecTokenPrefix)) return true;
  // Only the header's bytes are read, and only from a regular file: the
  // caller reports anything else (a device, a directory, a huge file).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path_or_token, ec)) return false;
  std::ifstream in(path_or_token, std::ios::binary);
  std::string head(kExecReplayHeader.size() + 1, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head == absl::StrCat(kExecReplayHeader, "\n");
}

absl::StatusOr<ExecReplay> LoadExecReplay(const std::string& path_or_token) {
  if (absl::StartsWith(path_or_token, kExecTokenPrefix)) {
    std::string text;
    if (!absl::WebSafeBase64Unescape(path_or_token.substr(kExecTokenPrefix.size()), &text)) {
      return absl::InvalidArgumentError("exec replay token: not base64");
    }
    return ParseExecReplay(text);
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_or_token, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read ", path_or_token));
  if (size > (1u << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path_or_token, " is larger than an exec replay can be (1 MiB)"));
  }
  std::ifstream in(path_or_token);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path_or_token));
  std::stringstream text;
  text << in.rdbuf();
  return ParseExecReplay(text.str());
}

}  // namespace stackcheck::properties
