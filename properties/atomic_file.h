// Writes a whole file so that readers see the old content or the new one,
// never a part: the text goes to a temporary file beside the target, which
// is then renamed over it.
#ifndef STACKCHECK_PROPERTIES_ATOMIC_FILE_H_
#define STACKCHECK_PROPERTIES_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace stackcheck::properties {

// Replaces `path` with `contents`. On any error the target is untouched and
// the temporary file removed.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_ATOMIC_FILE_H_
