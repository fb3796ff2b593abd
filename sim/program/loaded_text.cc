#include "sim/program/loaded_text.h"

#include <link.h>

#include <functional>

namespace stackcheck::program {
namespace {

struct Search {
  std::function<bool(const dl_phdr_info&, const TextRange&)> match;
  TextRange found;
};

int Visit(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    const TextRange text{begin, begin + ph.p_memsz};
    if (search->match(*info, text)) {
      search->found = text;
      return 1;
    }
  }
  return 0;
}

TextRange Find(std::function<bool(const dl_phdr_info&, const TextRange&)> match) {
  Search search{std::move(match), {}};
  dl_iterate_phdr(&Visit, &search);
  return search.found;
}

}  // namespace

TextRange TextOfObjectNamed(absl::string_view name_part) {
  return Find([name_part](const dl_phdr_info& info, const TextRange&) {
    return info.dlpi_name != nullptr &&
           absl::string_view(info.dlpi_name).find(name_part) != absl::string_view::npos;
  });
}

TextRange TextHolding(const void* address) {
  return Find(
      [address](const dl_phdr_info&, const TextRange& text) { return text.Contains(address); });
}

}  // namespace stackcheck::program
