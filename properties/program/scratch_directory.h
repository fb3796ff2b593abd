// A directory of its own under the system's temporary one, for an
// execution's files (its result, its output); removed with everything in it
// when this goes.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_SCRATCH_DIRECTORY_H_
#define STACKCHECK_PROPERTIES_PROGRAM_SCRATCH_DIRECTORY_H_

#include <string>

#include "absl/status/statusor.h"

namespace stackcheck::properties {

class ScratchDirectory {
 public:
  static absl::StatusOr<ScratchDirectory> Make();
  ScratchDirectory(ScratchDirectory&& other) noexcept;
  ScratchDirectory& operator=(ScratchDirectory&&) = delete;
  ~ScratchDirectory();
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_SCRATCH_DIRECTORY_H_
