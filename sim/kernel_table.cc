#include "sim/kernel_table.h"

#include "absl/strings/str_cat.h"

namespace stackcheck::sim {

std::string KernelLabel(std::uint32_t id, std::uint32_t region) {
  return region == 0 ? absl::StrCat("kernel ", id, " (no region)")
                     : absl::StrCat("kernel ", id, " (region ", region, ")");
}

}  // namespace stackcheck::sim
