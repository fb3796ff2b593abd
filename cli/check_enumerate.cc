#include "cli/check_enumerate.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/check_scenario.h"
#include "cli/command.h"
#include "cli/flag_parser.h"
#include "properties/scenario_space.h"

ABSL_FLAG(bool, enumerate, false,
          "check: search every scenario up to --max_threads x --max_ops x --max_faults over "
          "--vocabulary, each exhaustively, instead of one scenario");
ABSL_FLAG(int, max_threads, 2, "check --enumerate: at most this many host threads (1-4)");
ABSL_FLAG(int, max_ops, 2, "check --enumerate: at most this many operations per thread (1-8)");
ABSL_FLAG(int, max_faults, 1,
          "check --enumerate: at most this many faults per scenario (aborting regions, "
          "injected failures, device constructors/destructors; 0-4)");
ABSL_FLAG(int, max_fault_call, 2,
          "check --enumerate: out of memory / rejected launch at the k-th call, k = 1..this");
ABSL_FLAG(std::string, vocabulary, "",
          "check --enumerate: comma-separated words to use (default all): run, run-wide, "
          "run-mapped, run-ptr, alloc, free, enter, update, exit; faults abort, oom, reject, "
          "ctors, dtors");
ABSL_FLAG(std::uint64_t, scenario_executions, 100000,
          "check --enumerate: execution budget of each scenario's search");

namespace stackcheck::cli {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

absl::StatusOr<properties::ScopeBound> BoundFromFlags() {
  properties::ScopeBound b;
  b.max_threads = absl::GetFlag(FLAGS_max_threads);
  b.max_ops = absl::GetFlag(FLAGS_max_ops);
  b.max_faults = absl::GetFlag(FLAGS_max_faults);
  b.max_fault_call = absl::GetFlag(FLAGS_max_fault_call);
  const std::string words = absl::GetFlag(FLAGS_vocabulary);
  if (!words.empty()) b.words = absl::StrSplit(words, ',');
  if (absl::Status s = ApplyDeviceFlags(b.base); !s.ok()) return s;
  if (FlagGiven("free_no_wait")) b.free_waits_for_streams = {b.base.modes.free_waits_for_streams};
  if (FlagGiven("concurrent_callbacks")) {
    b.serial_callback_thread = {b.base.modes.serial_callback_thread};
  }
  return b;
}

// The first scenario a fingerprint was met in.
struct FirstMet {
  std::string property;
  bool known = false;
  std::size_t scenario = 0;  // 1-based
  std::string label;
  std::string token;
};

struct ScenarioOutcome {
  std::string label;
  std::uint64_t executions = 0;
  bool exhausted = false;
  double seconds = 0;
  std::optional<properties::Finding> violation;  // the search's first
};

std::string ViolationText(const std::optional<properties::Finding>& f) {
  if (!f.has_value()) return "none";
  return absl::StrCat(f->violation.property, f->known ? " (known)" : " (NEW)");
}

void WriteFingerprints(const std::string& key, const std::map<std::string, FirstMet>& met,
                       ReportSink& out) {
  if (out.json()) {
    out.Custom(key, "", [&met](properties::JsonWriter& j) {
      j.BeginArray();
      for (const auto& [fp, m] : met) {
        j.BeginObject();
        j.Key("fingerprint").String(fp);
        j.Key("property").String(m.property);
        j.Key("known").Bool(m.known);
        j.Key("scenario").Uint(m.scenario);
        j.Key("label").String(m.label);
        j.Key("replay").String(m.token);
        j.EndObject();
      }
      j.EndArray();
    });
    return;
  }
  // Fingerprints hold commas: one line each.
  for (const auto& [fp, m] : met) {
    out.Note(absl::StrFormat("%s %s: %s", key == "known_met" ? "known_met" : "fingerprint",
                             m.known ? "known" : "NEW", fp));
    out.Note(absl::StrFormat("  first in scenario %d %s; replay %s", m.scenario, m.label, m.token));
  }
}

void NotePlan(const properties::ExploreSpec& base, const properties::ScopeBound& bound,
              const std::vector<std::string>& words, std::uint64_t per_scenario, ReportSink& out) {
  out.Note(absl::StrFormat(
      "check: policy %s, every scenario of at most %d threads x %d ops, %d faults (vocabulary "
      "%s), strategy %s, %d executions per scenario",
      base.policy->name, bound.max_threads, bound.max_ops, bound.max_faults,
      absl::StrJoin(words, ","), base.strategy, per_scenario));
  if (out.json()) {
    out.Field("command", "check").Field("policy", base.policy->name).Field("enumerate", true);
    out.Field("max_threads", bound.max_threads).Field("max_ops", bound.max_ops);
    out.Field("max_faults", bound.max_faults).Field("max_fault_call", bound.max_fault_call);
    out.List("vocabulary", words);
    out.Field("strategy", base.strategy).Field("bound", base.strategy_params.preemption_bound);
    out.Field("scenario_executions", per_scenario);
  }
}

// A progress line on stderr now and then: more often on a terminal, where
// someone watches, than in a log.
class ProgressLine {
 public:
  explicit ProgressLine(Clock::time_point start)
      : start_(start), interval_s_(isatty(STDERR_FILENO) ? 2 : 10) {}

  // `executions`: every scenario's so far, the running one's included.
  void Report(std::size_t index, std::uint64_t executions) {
    const double now = SecondsSince(start_);
    if (now - last_s_ < interval_s_) return;
    absl::FPrintF(stderr, "check: scenario %d, %d executions in %.0f s (%.0f executions/s)\n",
                  index + 1, executions, now,
                  static_cast<double>(executions - last_executions_) / (now - last_s_));
    last_s_ = now;
    last_executions_ = executions;
  }

 private:
  Clock::time_point start_;
  double interval_s_;
  double last_s_ = 0;
  std::uint64_t last_executions_ = 0;
};

// What ends the enumeration before the scope does.
struct EnumerationLimits {
  std::uint64_t per_scenario = 0;
  std::uint64_t executions = 0;  // every scenario's together
  Clock::time_point deadline;
};

struct EnumerationTally {
  std::uint64_t executions = 0;
  std::size_t exhausted = 0, violating = 0;
  bool failed = false;
  bool out_of_time = false;
  bool interrupted = false;    // a signal (cli/interrupt.h) stopped it
  bool every_scenario = true;  // the enumeration ran to its end
  std::map<std::string, FirstMet> findings, known_met;
  std::vector<ScenarioOutcome> outcomes;
  std::vector<std::string> not_monitored;
};

// Whether no further scenario may start; notes a deadline or a signal as the
// reason.
bool MustStop(const properties::ExploreSpec& base, const EnumerationLimits& limits,
              EnumerationTally& tally) {
  if (tally.executions >= limits.executions) return true;
  if (Clock::now() >= limits.deadline) {
    tally.out_of_time = true;
    return true;
  }
  if (base.interrupt != nullptr && base.interrupt->load()) {
    tally.interrupted = true;
    return true;
  }
  return false;
}

// One scenario's search, within what is left of the budget and the time.
properties::ExploreSpec ScenarioSpec(const properties::ExploreSpec& base,
                                     const properties::ScopeScenario& scenario,
                                     const EnumerationLimits& limits,
                                     std::uint64_t executions_so_far) {
  properties::ExploreSpec spec = base;
  spec.test_case = scenario.test_case;
  spec.max_executions = std::min(limits.per_scenario, limits.executions - executions_so_far);
  if (limits.deadline != Clock::time_point::max()) {
    spec.time_budget = absl::FromChrono(limits.deadline - Clock::now());
  }
  return spec;
}

void RecordFirstMet(const std::vector<properties::Finding>& fs, std::size_t scenario,
                    const std::string& label, std::map<std::string, FirstMet>& into) {
  for (const properties::Finding& f : fs) {
    into.emplace(f.violation.fingerprint,
                 FirstMet{f.violation.property, f.known, scenario, label, f.token});
  }
}

// Adds the search of scenario `index` (0-based) to the tally, with its line.
void TallyScenario(std::size_t index, const std::string& label, const properties::ExploreReport& r,
                   EnumerationTally& tally, ReportSink& out) {
  ScenarioOutcome o;
  o.label = label;
  if (index == 0) tally.not_monitored = r.not_monitored;
  o.executions = r.executions;
  o.exhausted = r.exhausted;
  o.seconds = r.seconds;
  if (r.first() != nullptr) o.violation = *r.first();
  tally.out_of_time = tally.out_of_time || r.out_of_time;
  tally.interrupted = tally.interrupted || r.interrupted;
  tally.executions += r.executions;
  tally.exhausted += r.exhausted;
  if (!r.status.ok()) {
    absl::FPrintF(stderr, "stackcheck: scenario %d %s: %s\n", index + 1, o.label,
                  r.status.message());
    tally.failed = true;
  }
  tally.violating += !r.findings.empty();
  RecordFirstMet(r.findings, index + 1, o.label, tally.findings);
  RecordFirstMet(r.known_met, index + 1, o.label, tally.known_met);
  out.Note(absl::StrFormat("scenario %d %s: executions %d exhausted %s violation %s", index + 1,
                           o.label, o.executions, o.exhausted ? "yes" : "no",
                           ViolationText(o.violation)));
  tally.outcomes.push_back(std::move(o));
}

void WriteScenarioResults(const std::vector<ScenarioOutcome>& outcomes, ReportSink& out) {
  if (!out.json()) return;
  out.Custom("scenario_results", "", [&outcomes](properties::JsonWriter& j) {
    j.BeginArray();
    for (const ScenarioOutcome& o : outcomes) {
      j.BeginObject();
      j.Key("label").String(o.label);
      j.Key("executions").Uint(o.executions);
      j.Key("exhausted").Bool(o.exhausted);
      j.Key("seconds").Double(o.seconds);
      if (!o.violation.has_value()) {
        j.Key("violation").Null();
      } else {
        j.Key("violation").BeginObject();
        j.Key("property").String(o.violation->violation.property);
        j.Key("fingerprint").String(o.violation->violation.fingerprint);
        j.Key("known").Bool(o.violation->known);
        j.Key("replay").String(o.violation->token);
        j.EndObject();
      }
      j.EndObject();
    }
    j.EndArray();
  });
}

// The totals and the fingerprints met; returns the exit code.
int WriteSummary(const EnumerationTally& tally, Clock::time_point start, ReportSink& out) {
  std::size_t new_count = 0;
  for (const auto& [fp, m] : tally.findings) new_count += !m.known;
  const auto scenarios_run = static_cast<std::uint64_t>(tally.outcomes.size());
  out.List("not_monitored", tally.not_monitored);
  // How many scenarios the bound holds is known only when all were run.
  if (tally.every_scenario) out.Field("scenarios", scenarios_run);
  out.Field("scenarios_run", scenarios_run);
  out.Field("scenarios_exhausted", static_cast<std::uint64_t>(tally.exhausted));
  out.Field("executions", tally.executions);
  out.Field("exhausted", tally.every_scenario && tally.exhausted == tally.outcomes.size());
  if (tally.out_of_time) out.Field("out_of_time", true);
  if (tally.interrupted) out.Field("stopped_by", "signal");
  out.Seconds("seconds", SecondsSince(start));
  out.Field("violating_scenarios", static_cast<std::uint64_t>(tally.violating));
  WriteFingerprints("findings", tally.findings, out);
  WriteFingerprints("known_met", tally.known_met, out);
  out.Field("new", static_cast<std::uint64_t>(new_count));
  return tally.failed || new_count > 0 ? kExitMismatch : kExitOk;
}

}  // namespace

bool EnumerateRequested() { return absl::GetFlag(FLAGS_enumerate); }

const std::vector<const char*>& EnumerateFlags() {
  static const std::vector<const char*>* const flags =
      new std::vector<const char*>{"max_threads",    "max_ops",    "max_faults",
                                   "max_fault_call", "vocabulary", "scenario_executions"};
  return *flags;
}

int RunEnumeration(const properties::ExploreSpec& base, std::uint64_t max_executions,
                   absl::Duration time_budget, ReportSink& out) {
  absl::StatusOr<properties::ScopeBound> bound = BoundFromFlags();
  if (!bound.ok()) return UsageError(bound.status().message());
  // The bound is checked before any work; the scenarios are made as they
  // are explored (the space can be far larger than memory).
  if (absl::Status s =
          properties::VisitScope(*bound, [](const properties::ScopeScenario&) { return false; });
      !s.ok()) {
    return UsageError(s.message());
  }
  const std::uint64_t per_scenario = absl::GetFlag(FLAGS_scenario_executions);
  if (per_scenario == 0) return UsageError("--scenario_executions must be at least 1");

  const std::vector<std::string> words =
      bound->words.empty() ? properties::VocabularyWords() : bound->words;
  NotePlan(base, *bound, words, per_scenario, out);

  const Clock::time_point start = Clock::now();
  EnumerationLimits limits;
  limits.per_scenario = per_scenario;
  limits.executions = max_executions == 0 ? ~std::uint64_t{0} : max_executions;
  limits.deadline = time_budget == absl::InfiniteDuration()
                        ? Clock::time_point::max()
                        : start + absl::ToChronoNanoseconds(time_budget);
  EnumerationTally tally;
  ProgressLine progress(start);
  const absl::Status visited =
      properties::VisitScope(*bound, [&](const properties::ScopeScenario& scenario) {
        if (MustStop(base, limits, tally)) return tally.every_scenario = false;
        const std::size_t index = tally.outcomes.size();
        properties::ExploreSpec spec = ScenarioSpec(base, scenario, limits, tally.executions);
        spec.on_progress = [&progress, &tally, index](const properties::ExploreProgress& p) {
          progress.Report(index, tally.executions + p.executions);
        };
        TallyScenario(index, scenario.label, properties::Explore(spec), tally, out);
        return true;
      });
  if (!visited.ok()) return UsageError(visited.message());

  WriteScenarioResults(tally.outcomes, out);
  return WriteSummary(tally, start, out);
}

}  // namespace stackcheck::cli
