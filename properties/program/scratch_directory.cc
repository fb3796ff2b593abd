#include "properties/program/scratch_directory.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stackcheck::properties {

namespace fs = std::filesystem;

absl::StatusOr<ScratchDirectory> ScratchDirectory::Make() {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return absl::UnavailableError(absl::StrCat("no temporary directory: ", ec.message()));
  std::string pattern = (tmp / "stackcheck-exec-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot create a scratch directory in ",
                                               tmp.string(), ": ", std::strerror(errno)));
  }
  return ScratchDirectory(std::move(pattern));
}

ScratchDirectory::ScratchDirectory(ScratchDirectory&& other) noexcept
    : path_(std::move(other.path_)) {
  other.path_.clear();
}

ScratchDirectory::~ScratchDirectory() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);  // best effort: a leftover costs only disk
}

}  // namespace stackcheck::properties
