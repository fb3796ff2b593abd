// Coverage-probe names (RuntimeObserver::Probe) as small ids, so a kProbe
// event carries a number. Ids are handed out on first use and stay stable for
// the Simulator's lifetime, across executions.
#ifndef STACKCHECK_SIM_PROBE_REGISTRY_H_
#define STACKCHECK_SIM_PROBE_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace stackcheck::sim {

class ProbeRegistry {
 public:
  // The id of `name`, registering it if new.
  std::uint32_t Intern(absl::string_view name);
  // -1 if `name` was never seen.
  std::int64_t Find(absl::string_view name) const;
  // "" for an unknown id.
  absl::string_view Name(std::uint32_t id) const;
  std::size_t size() const { return names_.size(); }

 private:
  absl::flat_hash_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_PROBE_REGISTRY_H_
