// A test case: everything one simulated execution depends on, as one value that
// generators produce, shrinkers reduce and replay files store.
#ifndef STACKCHECK_PROPERTIES_CASE_H_
#define STACKCHECK_PROPERTIES_CASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cu_result.h"
#include "core/scenario.h"

namespace stackcheck::properties {

// The simulator's modes for behaviour the documentation leaves open (a correct
// policy must pass under every combination), plus its bounds.
struct SimModes {
  bool free_waits_for_streams = true;  // SEM-11: cuMemFree waits for all streams
  bool serial_callback_thread = true;  // SEM-07: one callback thread, in order
  CuResult trap_code = CuResult::kLaunchFailed;  // SEM-04: what __trap() gives
  std::uint64_t alloc_granularity = 64 * kKiB;   // SEM-12
  std::uint64_t step_bound = 20000;  // scheduling points before `progress` fails

  friend bool operator==(const SimModes& a, const SimModes& b) {
    return a.free_waits_for_streams == b.free_waits_for_streams &&
           a.serial_callback_thread == b.serial_callback_thread &&
           a.trap_code == b.trap_code && a.alloc_granularity == b.alloc_granularity &&
           a.step_bound == b.step_bound;
  }
};

struct Case {
  Scenario scenario;
  SimModes modes;
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
