#include "core/policies/registry.h"

namespace stackcheck {

// Each factory is defined in its policy's own file.
std::unique_ptr<Policy> MakeV2Gcc11(RuntimeContext& ctx);

namespace {

constexpr PolicyInfo kPolicies[] = {
    {"v2-gcc11",
     "GCC 11: lock held across launch and ctx sync, 128 MiB soft limit in device_alloc, "
     "free-and-retry on OOM, freed at close",
     &MakeV2Gcc11},
};

}  // namespace

absl::Span<const PolicyInfo> AllPolicies() { return kPolicies; }

const PolicyInfo* FindPolicy(absl::string_view name) {
  for (const PolicyInfo& p : kPolicies) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace stackcheck
