#include "hardware/hardware_judgements.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/cu_result.h"
#include "hardware/run_record.h"

namespace stackcheck::hardware {
namespace {

PropertyResult Holds() { return {"", HwVerdict::kHolds, ""}; }
PropertyResult Violated(std::string why) { return {"", HwVerdict::kViolated, std::move(why)}; }
PropertyResult Unobserved(std::string why) { return {"", HwVerdict::kNotObserved, std::move(why)}; }

std::string Stamp(std::uint64_t stamp) {
  return absl::StrFormat("region %d warp %d", stamp >> 32, stamp & 0xffffffff);
}

double MiB(std::uint64_t bytes) { return static_cast<double>(bytes) / kMiB; }

// no-deadlock and progress: the watchdog ended the run.
PropertyResult EndsWithoutWatchdog(const RunEvidence& e) {
  if (!e.run.Hung()) return Holds();
  return Violated(absl::StrCat("watchdog: ", e.run.hang_report.empty()
                                                 ? "no thread activity recorded"
                                                 : absl::StrJoin(e.run.hang_report, "; ")));
}

PropertyResult NoStackOverlap(const RunEvidence& e) {
  if (!e.rec.device_snapshot) return Unobserved("no device snapshot");
  if (e.rec.corruptions == 0) return Holds();
  return Violated(absl::StrFormat("%d warp(s) found their slot overwritten (%s found %s's stamp)",
                                  e.rec.corruptions, Stamp(e.rec.corrupt_expected),
                                  Stamp(e.rec.corrupt_observed)));
}

PropertyResult NoLeak(const RunEvidence& e) {
  const RunRecord& rec = e.rec;
  if (!rec.device_snapshot || e.run.Hung()) return Unobserved("run did not end");
  if (!rec.context_destroyed) return Unobserved("device never closed");
  // After a sticky error the context is unusable and its memory goes with it.
  const bool sticky =
      IsStickyError(static_cast<CuResult>(rec.fatal_code)) || rec.callbacks_run_with_error > 0;
  if (rec.leaked_bytes == 0 || sticky) return Holds();
  std::string driver_view;
  if (rec.baseline_known && rec.free_at_close_known) {
    driver_view = absl::StrFormat("; cuMemGetInfo: %.1f MiB less free than on a fresh context",
                                  MiB(rec.free_at_start) - MiB(rec.free_at_close));
  }
  return Violated(absl::StrFormat("%d block(s), %.1f MiB still allocated at context destroy%s",
                                  rec.leaked_blocks, MiB(rec.leaked_bytes), driver_view));
}

PropertyResult MutexDiscipline(const RunEvidence& e) {
  if (e.rec.mutex_anomalies == 0) return Holds();
  return Violated(absl::StrFormat("%d anomal%s, first: %s", e.rec.mutex_anomalies.load(),
                                  e.rec.mutex_anomalies > 1 ? "ies" : "y",
                                  e.rec.first_mutex_anomaly));
}

PropertyResult AbortAttribution(const RunEvidence& e) {
  std::vector<RegionId> aborting;
  for (const ThreadProgram& t : e.scenario.threads) {
    for (const HostOp& op : t.ops) {
      if (op.HasRegion() && op.region.aborts) aborting.push_back(op.region.id);
    }
  }
  const RunRecord& rec = e.rec;
  const bool reported = rec.fatals > 0;
  const auto code = static_cast<CuResult>(rec.fatal_code);
  if (aborting.empty()) {
    if (!reported || code != CuResult::kLaunchFailed) return Holds();
    return Violated(absl::StrFormat("an abort reported against region %d, but no region aborts",
                                    rec.fatal_region));
  }
  if (!reported) {
    if (e.run.Hung()) return Unobserved("hung before any fatal report");
    return Violated(absl::StrFormat(
        "abort lost: the process ended (status %d) without a fatal report", e.run.exit_status));
  }
  if (code != CuResult::kLaunchFailed) {
    return Unobserved(absl::StrFormat("first fatal was %s, not the abort", CuResultName(code)));
  }
  if (std::find(aborting.begin(), aborting.end(), rec.fatal_region) != aborting.end()) {
    return Holds();
  }
  return Violated(absl::StrFormat("abort reported against %s; aborting: region %s",
                                  rec.fatal_region == kNoRegion
                                      ? std::string("no region")
                                      : absl::StrCat("region ", rec.fatal_region),
                                  absl::StrJoin(aborting, ", ")));
}

PropertyResult BoundedCache(const RunEvidence& e) {
  if (e.rec.cache_over_bound == 0) return Holds();
  return Violated(absl::StrFormat(
      "cache held %.1f MiB after device_alloc, bound %.1f MiB (%d "
      "time(s))",
      MiB(e.rec.cache_worst_held), MiB(e.rec.cache_worst_bound), e.rec.cache_over_bound.load()));
}

PropertyResult SyncCompletion(const RunEvidence& e) {
  if (e.rec.returned_before_kernel_done == 0) return Holds();
  return Violated(absl::StrFormat("%d region(s) returned while their kernel was still running",
                                  e.rec.returned_before_kernel_done.load()));
}

PropertyResult NoDriverCallInCallback(const RunEvidence& e) {
  if (!e.rec.device_snapshot) return Unobserved("no device snapshot");
  if (e.rec.calls_from_callback == 0) return Holds();
  return Violated(absl::StrFormat("%d driver call(s) from a callback, first %s",
                                  e.rec.calls_from_callback, e.rec.first_call_from_callback));
}

constexpr HardwareJudgement kJudgements[] = {
    {"no-use-after-free", nullptr,
     "cuMemFree waits for the device to finish with the block (SEM-11), so a kernel never "
     "runs on freed memory on the GPU"},
    {"no-stack-overlap", &NoStackOverlap, ""},
    {"no-leak", &NoLeak, ""},
    {"no-driver-call-in-callback", &NoDriverCallInCallback, ""},
    {"no-deadlock", &EndsWithoutWatchdog, ""},
    {"mutex-discipline", &MutexDiscipline, ""},
    {"abort-attribution", &AbortAttribution, ""},
    {"bounded-cache", &BoundedCache, ""},
    {"progress", &EndsWithoutWatchdog, ""},
    {"sync-completion", &SyncCompletion, ""},
    {"data-race", nullptr,
     "the GPU run records no happens-before order between its threads' accesses"},
    {"no-avoidable-oom", nullptr,
     "the GPU run records no allocation that gave up beside a cache that could have made room"},
    {"no-crash", nullptr,
     "a crash would end the runner itself; GCC's own crash is measured by "
     "hardware/finalize_race_on_gpu.sh"},
};

}  // namespace

absl::Span<const HardwareJudgement> HardwareJudgements() { return kJudgements; }

PropertyResult JudgeOnHardware(absl::string_view property, const RunRecord& rec,
                               const Scenario& scenario, const HardwareRunResult& run) {
  PropertyResult result = Unobserved(
      std::string("the property catalogue names it, but hardware_judgements.cc has no row for it"));
  for (const HardwareJudgement& row : kJudgements) {
    if (row.property != property) continue;
    result = row.judge != nullptr
                 ? row.judge(RunEvidence{rec, scenario, run})
                 : Unobserved(absl::StrCat("not observable on hardware: ", row.not_observable));
    break;
  }
  result.property = std::string(property);
  return result;
}

}  // namespace stackcheck::hardware
