// A stable 64-bit digest of bytes (FNV-1a): the identity of a program file
// an exec replay names, and the integrity check of a search checkpoint. It
// finds accidental change - a damaged file, a hand edit, a file of another
// search - not a forger's: it is not a cryptographic hash.
#ifndef STACKCHECK_CORE_TEXT_DIGEST_H_
#define STACKCHECK_CORE_TEXT_DIGEST_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace stackcheck {

class TextDigest {
 public:
  void Add(absl::string_view bytes) {
    for (unsigned char c : bytes) hash_ = (hash_ ^ c) * kPrime;
  }
  std::uint64_t value() const { return hash_; }
  // "fnv1a64:" and 16 hex digits.
  std::string Text() const { return absl::StrFormat("fnv1a64:%016x", hash_); }

 private:
  static constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
  static constexpr std::uint64_t kPrime = 0x100000001b3ull;
  std::uint64_t hash_ = kOffsetBasis;
};

inline std::string TextDigestOf(absl::string_view bytes) {
  TextDigest d;
  d.Add(bytes);
  return d.Text();
}

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_TEXT_DIGEST_H_
