// Whole files: written so that readers see the old content or the new one,
// never a part (the text goes to a temporary file beside the target, which
// is then renamed over it), and read with a cap on their size.
#ifndef STACKCHECK_PROPERTIES_ATOMIC_FILE_H_
#define STACKCHECK_PROPERTIES_ATOMIC_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stackcheck::properties {

// Replaces `path` with `contents`. On any error the target is untouched and
// the temporary file removed. Only a regular file (or none) is replaced so:
// a symbolic link is written through (the link stays; a dangling one is
// refused), and a device, FIFO or terminal is written in place, never
// replaced by a regular file; a directory is refused.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// Whether WriteFileAtomically could write `path` now: its directory exists
// and is writable, and it is not a directory. Found out before a long run
// whose end is to keep the file; errors start with `flag` and the path.
absl::Status CheckWritable(const std::string& path, absl::string_view flag);

// Reads a regular file of at most `max_bytes` (not a directory, a device or a
// pipe); errors start with the path and name `what` it must be.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, std::size_t max_bytes,
                                          absl::string_view what);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_ATOMIC_FILE_H_
