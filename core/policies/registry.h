// The stack-cache policies this build knows, selectable by name.
//
// Adding a policy = one new file in core/policies/ defining its factory, and
// one line in registry.cc's table.
#ifndef STACKCHECK_CORE_POLICIES_REGISTRY_H_
#define STACKCHECK_CORE_POLICIES_REGISTRY_H_

#include <memory>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/cache_bound.h"
#include "core/policies/policy.h"

namespace stackcheck {

struct PolicyInfo {
  const char* name;     // e.g. "v2-gcc11"
  const char* summary;  // one line: what it models
  std::unique_ptr<Policy> (*make)(RuntimeContext& ctx);
  // Run returns before the region's kernel has completed, by design; the
  // "sync-completion" property is then an accepted deviation for it.
  bool accepts_async_completion = false;
  // The memory bound its cache keeps, which bounded-cache checks.
  CacheBound cache_bound = CacheBound::kSoftLimit;
};

// Every policy, in the order `stackcheck policies` lists them.
absl::Span<const PolicyInfo> AllPolicies();
// nullptr if no policy has that name.
const PolicyInfo* FindPolicy(absl::string_view name);

}  // namespace stackcheck

#endif  // STACKCHECK_CORE_POLICIES_REGISTRY_H_
