// Where a loaded object's code is: the address range of its executable
// segment, found with dl_iterate_phdr. The futex trap needs libgomp's (to
// trap futex calls from it only); the interposers need this library's own
// (to tell its own pthread calls from the program's).
#ifndef STACKCHECK_SIM_PROGRAM_LOADED_TEXT_H_
#define STACKCHECK_SIM_PROGRAM_LOADED_TEXT_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace stackcheck::program {

struct TextRange {
  std::uintptr_t begin = 0;  // 0: not found
  std::uintptr_t end = 0;
  bool Contains(const void* address) const {
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    return a >= begin && a < end;
  }
};

// The executable segment of the first loaded object whose path contains
// `name_part` ("libgomp.so").
TextRange TextOfObjectNamed(absl::string_view name_part);
// The executable segment that holds `address`.
TextRange TextHolding(const void* address);

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_LOADED_TEXT_H_
