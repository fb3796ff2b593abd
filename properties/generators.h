// RapidCheck generators for the one shrinkable input: scenario, simulator
// modes and schedule together, so shrinking reduces threads, regions, faults
// and preemptions at once.
//
// Sizes are deliberately small: blocks are a few 128 KiB "units" (teams and
// warps 1..4), and capacity and soft limit are a few units too, so blocks grow,
// the OOM retry and the soft-limit paths are exercised, and counterexamples stay
// readable.
#ifndef STACKCHECK_PROPERTIES_GENERATORS_H_
#define STACKCHECK_PROPERTIES_GENERATORS_H_

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/scenario.h"
#include "properties/case.h"
#include "rapidcheck.h"

namespace stackcheck::properties {

// The unit all sizes are drawn in: one warp's stack.
inline constexpr std::uint64_t kUnit = kDefaultStackSizePerWarp;

struct GenOptions {
  int max_threads = 4;
  int max_ops_per_thread = 5;
  int max_schedule = 48;   // schedule choices
  bool vary_modes = true;  // draw SEM-07 / SEM-11 modes, else the defaults
  // False: every case's schedule is empty. Only the sequence strategy reads
  // it, and drawing it costs more than the rest of a case. The scenario and
  // modes drawn for a seed are the same either way.
  bool draw_schedule = true;
};

rc::Gen<RegionSpec> GenRegion();  // id left 0: GenScenario numbers regions
rc::Gen<HostOp> GenHostOp();
rc::Gen<FaultPlan> GenFaultPlan();
rc::Gen<Scenario> GenScenario(const GenOptions& options = {});
rc::Gen<sim::SimModes> GenSimModes(const GenOptions& options = {});
rc::Gen<std::vector<std::uint64_t>> GenSchedule(const GenOptions& options = {});
rc::Gen<Case> GenCase(const GenOptions& options = {});

// Gives every region a unique id, 1, 2, ... in thread order (shrinking removes
// regions, so ids are renumbered rather than drawn).
void NumberRegions(Scenario& s);

// The case the generator yields for a seed: what the campaign explores. Same
// seed, same case, on every machine.
Case CaseForSeed(const rc::Gen<Case>& gen, std::uint64_t seed, int size = 100);

// Shown by RapidCheck in counterexamples.
void showValue(const Case& c, std::ostream& os);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_GENERATORS_H_
