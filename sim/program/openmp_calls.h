// The program's offloading calls into libgomp (openmp_calls.cc), as far as
// the rest of this library needs to know them.
#ifndef STACKCHECK_SIM_PROGRAM_OPENMP_CALLS_H_
#define STACKCHECK_SIM_PROGRAM_OPENMP_CALLS_H_

#include <cstddef>

namespace stackcheck::program {

// How many entries the variable table of the region the calling thread is
// launching has (GOMP_target_ext's `mapnum`); 0 outside GOMP_target_ext (a
// deferred region run by another thread, or none).
std::size_t CurrentRegionMapCount();

}  // namespace stackcheck::program

#endif  // STACKCHECK_SIM_PROGRAM_OPENMP_CALLS_H_
