// Runs one Case on the simulator under one policy: the single place where
// properties/ meets the engine, the monitors and the runtime.
#ifndef STACKCHECK_PROPERTIES_EXECUTOR_H_
#define STACKCHECK_PROPERTIES_EXECUTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/policies/registry.h"
#include "properties/case.h"
#include "properties/catalogue.h"
#include "sim/event.h"
#include "sim/monitor.h"
#include "sim/monitors/coverage_probes.h"
#include "sim/sim_config.h"
#include "sim/strategy.h"

namespace stackcheck::properties {

struct Execution {
  std::optional<sim::Violation> violation;
  // Sequence values that replay this execution through SequenceStrategy.
  std::vector<std::uint64_t> schedule;
  std::uint64_t digest = 0;
  std::uint64_t steps = 0;
  bool process_exited = false;
  int exit_status = 0;
  std::vector<sim::Event> trace;    // only with keep_trace
  std::vector<std::string> actor_names;  // indexed by ActorId; only with keep_trace
};

struct ExecuteOptions {
  bool keep_trace = false;
  // When set, the execution is counted there (which rare situations it hit).
  sim::CoverageProbes* coverage = nullptr;
};

// The simulator configuration a case runs under: its modes, capacity and
// injected allocation failure. Every search of a case (Execute, the
// exhaustive search, `check`) uses it, so a printed token replays the same.
sim::SimConfig SimConfigFor(const Case& c);

// Checks the monitor-backed properties in `monitored` (engine-checked ones,
// no-deadlock and progress, are always on). `strategy` answers the scheduling
// choices; when null, the case's own schedule drives a SequenceStrategy.
// Errors: a monitor the simulator does not provide.
absl::StatusOr<Execution> Execute(const Case& c, const PolicyInfo& policy,
                                  absl::Span<const PropertyInfo* const> monitored,
                                  sim::Strategy* strategy = nullptr,
                                  const ExecuteOptions& options = {});

// Every property the simulator can check (the whole catalogue).
std::vector<const PropertyInfo*> SimProperties();

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_EXECUTOR_H_
