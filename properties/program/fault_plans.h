// The fault plans exec draws or walks for a program, from the launches and
// allocations its fault-free execution made. A plan is made of fault units:
// a launch that traps, a launch the driver rejects, an allocation that fails,
// or an allocation and its retry that both fail (libgomp's plugin frees its
// stacks cache and retries a failed allocation once, so only the pair reaches
// a mapping's fatal path). Counts stay those of the fault-free run: a fault
// that changes what follows is still placed by that run's numbering.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_FAULT_PLANS_H_
#define STACKCHECK_PROPERTIES_PROGRAM_FAULT_PLANS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/program/exec_options.h"

namespace stackcheck::properties {

// One random plan of at most one unit (none in one draw of five).
program::FaultPlan RandomFault(std::uint64_t seed, std::uint32_t launches, std::uint32_t allocs);

// Up to `max_units` random units, merged where they can go together (a
// draw that clashes with an earlier one is dropped); with one unit,
// RandomFault's plan for the seed.
program::FaultPlan RandomPlan(std::uint64_t seed, std::uint32_t launches, std::uint32_t allocs,
                              int max_units);

// Every distinct plan of 1 to `max_units` units, smaller plans first: the
// units that can go together (one trap and one rejection at most, never of
// the same launch; allocation failures merged, a plan written once however
// its units spell it). The fault-free plan is not included. More than a
// million plans is an error (no search would end).
absl::StatusOr<std::vector<program::FaultPlan>> EveryPlan(std::uint32_t launches,
                                                          std::uint32_t allocs, int max_units);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_FAULT_PLANS_H_
