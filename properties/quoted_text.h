// Text from outside (a replay file, a token, the command line) shown in a
// message: escaped, so that it cannot put control sequences on a terminal,
// and truncated, so that a huge word does not become a huge message.
#ifndef STACKCHECK_PROPERTIES_QUOTED_TEXT_H_
#define STACKCHECK_PROPERTIES_QUOTED_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace stackcheck::properties {

// At most this many bytes of an outside word are shown.
inline constexpr std::size_t kQuotedMaxBytes = 64;

// `raw` C-escaped (absl::CEscape), cut after kQuotedMaxBytes bytes with a
// note of its full size.
std::string Quoted(absl::string_view raw);

// A whole message made safe to print: printable ASCII and newlines kept,
// every other byte as \xNN; cut after `max_bytes` bytes with a note.
std::string PrintableMessage(absl::string_view message, std::size_t max_bytes = 2000);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_QUOTED_TEXT_H_
