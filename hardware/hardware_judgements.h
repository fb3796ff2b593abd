// How a GPU run's record decides each property of the catalogue: one row per
// property, keyed by its catalogue name. A row either judges (from what the
// run's child recorded: run_record.h) or says why the GPU cannot observe the
// property; hardware_judgements_test holds every catalogue property to
// exactly one row, judging exactly where the catalogue says the GPU observes.
#ifndef STACKCHECK_HARDWARE_HARDWARE_JUDGEMENTS_H_
#define STACKCHECK_HARDWARE_HARDWARE_JUDGEMENTS_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/scenario.h"
#include "hardware/hardware_runner.h"

namespace stackcheck::hardware {

struct RunRecord;  // run_record.h: what the run's child wrote

// What a rule reads: the record, the scenario it ran, and how the run ended.
struct RunEvidence {
  const RunRecord& rec;
  const Scenario& scenario;
  const HardwareRunResult& run;
};

struct HardwareJudgement {
  absl::string_view property;  // a catalogue name
  // Holds, violated (with its evidence) or not observed in this run (why);
  // null: the GPU cannot observe the property at all.
  PropertyResult (*judge)(const RunEvidence& evidence);
  absl::string_view not_observable;  // why, when `judge` is null
};

absl::Span<const HardwareJudgement> HardwareJudgements();

// The row's verdict for `property`; a property without a row, or one the GPU
// cannot observe, is "not observed" with the reason as its evidence.
PropertyResult JudgeOnHardware(absl::string_view property, const RunRecord& rec,
                               const Scenario& scenario, const HardwareRunResult& run);

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_HARDWARE_JUDGEMENTS_H_
