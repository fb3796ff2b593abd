// Makes a real program's counterexample smaller while it shows the same bug
// (SameBug): the shortest prefix of its schedule (the rest without
// preemptions), then each preemption left undone where it can be, then its
// faults dropped if the bug does not need them. The model path's shrinker
// (properties/shrinker.h) reduces a Case; a program cannot be reduced, only
// its schedule and faults.
#ifndef STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_SHRINKER_H_
#define STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_SHRINKER_H_

#include "properties/program/program_run.h"
#include "sim/program/exec_options.h"

namespace stackcheck::properties {

struct ProgramShrinkResult {
  RunOutcome smallest;        // shows the same bug, with no more preemptions
  program::FaultPlan faults;  // the plan it needs: the one found, or none
  int executions = 0;         // candidates run
  bool stopped = false;       // the program's stop or deadline cut it short
};

// `found` ran under `faults`; at most `budget` candidates are run. A run
// that did not finish (a crash, a hang) has no schedule to shrink and comes
// back as it is.
ProgramShrinkResult ShrinkProgramRun(const ProgramUnderTest& program, const RunOutcome& found,
                                     const program::FaultPlan& faults, int budget);

}  // namespace stackcheck::properties

#endif  // STACKCHECK_PROPERTIES_PROGRAM_PROGRAM_SHRINKER_H_
