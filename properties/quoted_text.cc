#include "properties/quoted_text.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace stackcheck::properties {

std::string Quoted(absl::string_view raw) {
  if (raw.size() <= kQuotedMaxBytes) return absl::CEscape(raw);
  return absl::StrCat(absl::CEscape(raw.substr(0, kQuotedMaxBytes)), "... (", raw.size(),
                      " bytes)");
}

std::string PrintableMessage(absl::string_view message, std::size_t max_bytes) {
  std::string out;
  const absl::string_view shown = message.substr(0, max_bytes);
  out.reserve(shown.size());
  for (char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 0x20 && c < 0x7f) || c == '\n') {
      out.push_back(ch);
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  if (message.size() > max_bytes) {
    absl::StrAppend(&out, "... (", message.size(), " bytes)");
  }
  return out;
}

}  // namespace stackcheck::properties
