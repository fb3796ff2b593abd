#include "sim/probe_registry.h"

namespace stackcheck::sim {

std::uint32_t ProbeRegistry::Intern(absl::string_view name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(names_.back(), id);
  return id;
}

std::int64_t ProbeRegistry::Find(absl::string_view name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? -1 : static_cast<std::int64_t>(it->second);
}

absl::string_view ProbeRegistry::Name(std::uint32_t id) const {
  return id < names_.size() ? absl::string_view(names_[id]) : absl::string_view();
}

}  // namespace stackcheck::sim
