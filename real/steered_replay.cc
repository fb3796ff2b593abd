#include "real/steered_replay.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/policies/registry.h"
#include "properties/campaign.h"
#include "properties/catalogue.h"
#include "properties/case.h"
#include "properties/executor.h"
#include "sim/strategies/strict_sequence_strategy.h"

namespace stackcheck::real {

absl::StatusOr<SteeredReplayResult> ReplayOnHardware(
    absl::string_view replay, const SteeredReplayOptions& options) {
  absl::StatusOr<properties::ReplayRecord> record =
      properties::LoadReplay(replay);
  if (!record.ok()) return record.status();
  const PolicyInfo* policy = FindPolicy(record->policy);
  if (policy == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("the replay's policy '", record->policy, "' is unknown"));
  }
  SteeredReplayResult result;
  result.record = *record;
  result.scenario_text = properties::DescribeScenario(record->test_case.scenario);

  // Hardware first (each run forks), then the simulator.
  for (int i = 0; i < options.runs; ++i) {
    absl::StatusOr<HardwareRunResult> run =
        RunOnHardware(record->test_case.scenario, *policy, options.run);
    if (!run.ok()) return run.status();
    const PropertyResult* p = run->Find(record->property);
    if (p != nullptr && p->verdict == HwVerdict::kViolated) ++result.reproduced;
    const bool setup_failed =
        run->ending == HardwareRunResult::Ending::kSetupFailed;
    result.runs.push_back(*std::move(run));
    if (setup_failed) break;
  }
  // Only the recorded property (the engine's always-on ones aside): another
  // monitor firing first, e.g. an accepted deviation, would stop the replay
  // before the recorded violation.
  std::vector<const properties::PropertyInfo*> checked;
  if (const properties::PropertyInfo* p =
          properties::FindProperty(record->property);
      p != nullptr && p->checker == properties::Checker::kMonitor) {
    checked.push_back(p);
  }
  // Strictly, as `stackcheck replay` runs it: a schedule that does not fit
  // is bad input, not some other interleaving.
  sim::StrictSequenceStrategy schedule(record->test_case.schedule);
  absl::StatusOr<properties::Execution> sim =
      properties::Execute(record->test_case, *policy, checked, &schedule);
  if (!sim.ok()) return sim.status();
  if (absl::Status s = schedule.Finish(); !s.ok()) return s;
  if (sim->violation.has_value()) {
    result.sim_violated = sim->violation->property == record->property;
    result.sim_message = absl::StrCat(sim->violation->property, ": ",
                                      sim->violation->message);
  } else {
    result.sim_message = "no violation on replay";
  }
  return result;
}

std::string FormatSteeredReplay(const SteeredReplayResult& r,
                                const SteeredReplayOptions& options) {
  std::string out = absl::StrFormat(
      "counterexample: %s / %s\n%s\n", r.record.policy, r.record.property,
      r.scenario_text);
  absl::StrAppendFormat(&out, "simulator (recorded schedule): %s\n",
                        r.sim_message);
  std::vector<std::string> delays;
  for (absl::Duration d : options.run.spawn_delays) {
    delays.push_back(absl::FormatDuration(d));
  }
  absl::StrAppendFormat(
      &out, "steering: thread start delays [%s], kernels at least %s\n",
      absl::StrJoin(delays, ", "),
      absl::FormatDuration(options.run.min_kernel_duration));
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const HardwareRunResult& run = r.runs[i];
    const PropertyResult* p = run.Find(r.record.property);
    absl::StrAppendFormat(&out, "gpu run %d: %s in %.2f s; %s %s%s\n", i,
                          run.EndingText(), run.seconds, r.record.property,
                          p ? HwVerdictName(p->verdict) : "not judged",
                          p && !p->evidence.empty() ? ": " + p->evidence : "");
    for (const PropertyResult& other : run.properties) {
      if (other.property != r.record.property &&
          other.verdict == HwVerdict::kViolated) {
        absl::StrAppendFormat(&out, "    also %s: %s\n", other.property,
                              other.evidence);
      }
    }
    for (const std::string& f : run.facts) {
      absl::StrAppendFormat(&out, "    %s\n", f);
    }
  }
  absl::StrAppendFormat(&out, "reproduced on hardware: %d of %d run(s)\n",
                        r.reproduced, r.runs.size());
  return out;
}

}  // namespace stackcheck::real
