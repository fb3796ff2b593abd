#include "cli/common_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(bool, json, false, "print machine-readable JSON on stdout instead of text");
