// The scenario space `check --enumerate` searches: every scenario up to a
// size bound (threads x operations per thread x faults) over a fixed
// vocabulary of operations, faults and simulator modes. Small-scope
// hypothesis: most bugs show in small scopes, so an exhaustive search of
// each small scenario proves all of them.
//
// The vocabulary (VocabularyWords()): operations run (one warp slot),
// run-wide (two warps: the cached block grows), run-mapped (one mapped
// variable), run-ptr (a region whose kernel uses slot 0's allocation,
// is_device_ptr), alloc / free (omp_target_alloc / omp_target_free, slot 0),
// enter / update / exit (target enter data, update, exit data, slot 1);
// faults abort (an aborting form of each run word), oom and reject (the k-th
// cuMemAlloc fails / cuLaunchKernel is rejected, k in 1..max_fault_call),
// ctors and dtors (device constructors / destructors, counted as faults as
// SizeOf does). The modes listed in ScopeBound are each enumerated.
//
// Rules that keep the space free of duplicates:
//  - a thread fills a slot only when it is empty and empties (free, exit) or
//    reads (update) it only when full; a program whose last operation
//    empties its lowest full slot is left out: the thread's end releases
//    its slots in slot order anyway (core/scenario_runner.cc);
//  - threads are interchangeable, so a scenario's programs are a multiset:
//    they appear in the enumeration's program order.
#ifndef STACKCHECK_PROPERTIES_SCENARIO_SPACE_H_
#define STACKCHECK_PROPERTIES_SCENARIO_SPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "properties/case.h"

namespace stackcheck::properties {

struct ScopeBound {
  int max_threads = 2;     // 1..4
  int max_ops = 2;         // per thread, 1..8
  int max_faults = 1;      // aborting regions, injected failures, ctor/dtor kernels
  int max_fault_call = 2;  // oom / reject at call 1..this
  // Words of VocabularyWords() to use; empty: every word.
  std::vector<std::string> words;
  // Each value listed is enumerated (SEM-11, SEM-07).
  std::vector<bool> free_waits_for_streams = {true, false};
  std::vector<bool> serial_callback_thread = {true, false};
  // What every scenario starts from: device capacity, soft limit, the other
  // modes (granularity, trap code, step bound).
  Case base = DefaultScopeBase();

  // The device of the enumeration: a soft limit of one warp slot, so that a
  // run-wide block exceeds it and the soft-limit paths run.
  static Case DefaultScopeBase();
};

struct ScopeScenario {
  Case test_case;
  // "[run alloc] [run-wide+abort] oom@1 free-no-wait": the threads' words,
  // the scenario-wide faults, the modes that differ from the base's.
  std::string label;
};

// The vocabulary's words, in enumeration order.
const std::vector<std::string>& VocabularyWords();

// Every scenario within `bound`, smallest first (threads, then programs in
// order of length and words, then faults, then modes), handed to `visit` one
// at a time, made as they come (the space can be far larger than memory),
// until it returns false. Errors: a bound out of range, an unknown word, no
// operation word.
absl::Status VisitScope(const ScopeBound& bound,
                        absl::FunctionRef<bool(const ScopeScenario&)> visit);

// VisitScope's scenarios as a list, for small bounds.
absl::StatusOr<std::vector<ScopeScenario>> EnumerateScope(const ScopeBound& bound);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_SCENARIO_SPACE_H_
