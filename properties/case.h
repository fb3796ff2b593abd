// A test case: everything one simulated execution depends on, as one value that
// generators produce, shrinkers reduce and replay files store.
#ifndef STACKCHECK_PROPERTIES_CASE_H_
#define STACKCHECK_PROPERTIES_CASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cu_result.h"
#include "core/scenario.h"
#include "sim/sim_config.h"

namespace stackcheck::properties {

// The modes a case starts from, unless a generator or a replay file says
// otherwise: the simulator's defaults but a 64 KiB allocation granularity, so
// that the generators' blocks (multiples of 128 KiB) are not rounded up and a
// tight capacity stays tight, and a bound of 20000 steps, ample for cases of a
// few threads and regions, so that a livelock is reported quickly.
constexpr sim::SimModes CaseModes() {
  sim::SimModes m;
  m.alloc_granularity = 64 * kKiB;
  m.step_bound = 20000;
  return m;
}

struct Case {
  Scenario scenario;
  sim::SimModes modes = CaseModes();
  // Choices fed to the sequence strategy; when they run out it falls back to
  // its default (keep running the current actor), so an empty schedule is the
  // least-preemptive execution.
  std::vector<std::uint64_t> schedule;
};

// How big a case is, in the terms shrinking reduces.
struct CaseSize {
  int threads = 0;
  int regions = 0;
  int ops = 0;          // host operations of every kind
  int faults = 0;       // injected alloc failure, aborting regions, ctor/dtor kernels
  int choices = 0;      // schedule length
  int preemptions = 0;  // non-default (non-zero) schedule choices

  // "2 threads, 3 regions, 1 fault, 2 preemptions"
  std::string ToString() const;
};

CaseSize SizeOf(const Case& c);
// Number of kRun operations over all threads.
int RegionCount(const Scenario& s);

// Field-wise equality (named, because the core types are not ours to give
// operators to).
bool SameRegion(const RegionSpec& a, const RegionSpec& b);
bool SameOp(const HostOp& a, const HostOp& b);
bool SameScenario(const Scenario& a, const Scenario& b);
bool operator==(const Case& a, const Case& b);

// One line per thread, for logs and test failure messages.
std::string DescribeScenario(const Scenario& s);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_CASE_H_
