// The property catalogue: every property the testbed can check, by name, with
// who checks it and on which backends it can be observed at all.
//
// Names are the contract: monitors report them in Violation::property, the
// expected-verdicts table and the verdict table key on them, replay files
// record them. The hardware runs (hardware/) reuse the same list for their column.
#ifndef STACKCHECK_PROPERTIES_CATALOGUE_H_
#define STACKCHECK_PROPERTIES_CATALOGUE_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace stackcheck::properties {

// Which part of the testbed detects a violation of the property.
enum class Checker : std::uint8_t {
  kEngine,   // the simulator engine itself (it knows the wait-for graph)
  kMonitor,  // a monitor built with sim::MakeMonitor(monitor_name, ...)
};

// Backends, as bits, so a property can list every backend that observes it.
enum Backend : std::uint8_t {
  kSimBackend = 1 << 0,
  kCudaBackend = 1 << 1,
};

struct PropertyInfo {
  absl::string_view name;         // e.g. "no-use-after-free"
  absl::string_view description;  // one line
  Checker checker;
  // For kMonitor: the name sim::MakeMonitor takes (the property name today);
  // for kEngine: empty.
  absl::string_view monitor_name;
  std::uint8_t backends;  // Backend bits
  // A semantic deviation rather than a safety bug: a policy may declare that it
  // accepts it (PolicyInfo's accepts_async_completion).
  bool is_deviation;

  bool ObservableOn(Backend backend) const { return (backends & backend) != 0; }
};

// Every property, in the order reports list them.
absl::Span<const PropertyInfo> AllProperties();
// nullptr if `name` is not in the catalogue.
const PropertyInfo* FindProperty(absl::string_view name);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_CATALOGUE_H_
