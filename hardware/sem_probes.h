// One hardware probe per rule of docs/cuda-semantics.md that a GPU can show:
// each runs in its own forked child (several poison the context on purpose),
// does the smallest thing that exhibits the rule through CudaDevice, and
// reports what it saw next to what the spec (and so the simulator) says.
#ifndef STACKCHECK_HARDWARE_SEM_PROBES_H_
#define STACKCHECK_HARDWARE_SEM_PROBES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace stackcheck::hardware {

struct SemProbeResult {
  std::string id;        // "SEM-01"
  std::string spec;      // what the simulator models, one line
  std::string sim_test;  // the simulator's test for the same rule
  bool as_specified = false;
  std::string observed;  // what the GPU did, one line
};

// Runs every probe (each under a 20 s limit). Without a driver each result
// says so and is not as specified.
std::vector<SemProbeResult> RunSemProbes();

std::string FormatSemProbes(const std::vector<SemProbeResult>& results);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_SEM_PROBES_H_
