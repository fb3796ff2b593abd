// Random small toy systems for the strategies' RapidCheck properties: small
// enough that plain DFS explores them whole in milliseconds.
#ifndef STACKCHECK_SIM_STRATEGIES_SMALL_SYSTEMS_H_
#define STACKCHECK_SIM_STRATEGIES_SMALL_SYSTEMS_H_

#include <ostream>

#include "rapidcheck.h"
#include "sim/strategies/toy_system.h"

namespace stackcheck::sim::toy {

// Two or three threads of at most ten steps in all: reads, writes, data
// choices, mutex-guarded writes and nested locks taken in either order (so
// some systems deadlock), and exits that end the process.
rc::Gen<System> SmallSystems();

// How RapidCheck prints a counterexample (found by argument-dependent lookup).
void showValue(const System& system, std::ostream& os);

}  // namespace stackcheck::sim::toy

#endif  // STACKCHECK_SIM_STRATEGIES_SMALL_SYSTEMS_H_
