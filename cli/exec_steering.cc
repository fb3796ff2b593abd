#include "cli/exec_steering.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace stackcheck::cli {

std::vector<std::string> SteeringOrder(const std::vector<std::string>& calls) {
  std::vector<std::string> order;
  for (absl::string_view line : calls) {
    // "T<k> " then the call.
    const std::size_t space = line.find(' ');
    if (line.size() < 2 || line[0] != 'T' || space == absl::string_view::npos) continue;
    const absl::string_view thread = line.substr(0, space);
    if (thread.find_first_not_of("0123456789", 1) != absl::string_view::npos) continue;
    const absl::string_view call = line.substr(space + 1);
    const std::size_t end = call.find_first_of("( ");
    const absl::string_view name = call.substr(0, end);
    // Entry lines with arguments: the plugin's functions and the program's
    // calls into libgomp's offloading entry points.
    const bool plugin = absl::StartsWith(name, "GOMP_OFFLOAD_") ||
                        absl::StartsWith(name, "GOMP_target") ||
                        absl::StartsWith(name, "omp_target_");
    const bool driver = absl::StartsWith(name, "cu") && name.size() > 2;
    if (!plugin && !driver) continue;
    // A plugin call has an entry line with its arguments and a return line
    // ("GOMP_OFFLOAD_alloc -> 0x..."); only the entry orders anything.
    if (plugin && (end == absl::string_view::npos || call[end] != '(')) continue;
    order.push_back(absl::StrCat(thread, " ", name));
  }
  return order;
}

}  // namespace stackcheck::cli
