// Flags every command reads. Defined once here because an ABSL_FLAG may be
// defined in only one translation unit of the binary.
#ifndef STACKCHECK_CLI_COMMON_FLAGS_H_
#define STACKCHECK_CLI_COMMON_FLAGS_H_

#include "absl/flags/declare.h"

// Print machine-readable JSON on stdout instead of text.
ABSL_DECLARE_FLAG(bool, json);

#endif  // STACKCHECK_CLI_COMMON_FLAGS_H_
