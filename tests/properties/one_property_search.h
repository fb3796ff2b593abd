// One property searched for on its own, as the reduction tests compare
// searches: only its monitor on (or none at all, for the engine's own
// no-deadlock and progress), and on past every violation, so that a bug found
// in one execution cannot hide another one's. An execution stops at its first
// violation, hence one property at a time.
#ifndef STACKCHECK_TESTS_PROPERTIES_ONE_PROPERTY_SEARCH_H_
#define STACKCHECK_TESTS_PROPERTIES_ONE_PROPERTY_SEARCH_H_

#include <string>
#include <vector>

#include "core/policies/registry.h"
#include "properties/case.h"
#include "properties/explore.h"

namespace stackcheck::properties::testing {

// The "property" that stands for the engine's own (a search with no monitor).
inline constexpr char kEngineOnly[] = "(engine)";

// Every property the simulator monitors for `policy`, then kEngineOnly.
inline std::vector<std::string> PropertiesToSearch(const PolicyInfo& policy) {
  const std::vector<const PropertyInfo*> monitored =
      SelectMonitors(MonitorSelection{}, policy).value();
  std::vector<std::string> properties;
  for (const PropertyInfo* p : monitored) properties.emplace_back(p->name);
  properties.emplace_back(kEngineOnly);
  return properties;
}

// A search of `c` under `policy` with `strategy` for `property` alone, to
// the end; the caller adds bounds, jobs and the like.
inline ExploreSpec OnePropertySpec(const Case& c, const PolicyInfo& policy,
                                   const std::string& property, const std::string& strategy) {
  ExploreSpec spec;
  spec.test_case = c;
  spec.policy = &policy;
  spec.strategy = strategy;
  spec.stop = StopRule::kNever;
  spec.monitors = property == kEngineOnly ? MonitorSelection{MonitorSelection::kNone, {}}
                                          : MonitorSelection::Named({property});
  return spec;
}

}  // namespace stackcheck::properties::testing

#endif  // STACKCHECK_TESTS_PROPERTIES_ONE_PROPERTY_SEARCH_H_
