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
  out.Note(absl::StrFormat(
      "check: policy %s, every scenario of at most %d threads x %d ops, %d faults (vocabulary "
      "%s), strategy %s, %d executions per scenario",
      base.policy->name, bound->max_threads, bound->max_ops, bound->max_faults,
      absl::StrJoin(words, ","), base.strategy, per_scenario));
  if (out.json()) {
    out.Field("command", "check").Field("policy", base.policy->name).Field("enumerate", true);
    out.Field("max_threads", bound->max_threads).Field("max_ops", bound->max_ops);
    out.Field("max_faults", bound->max_faults).Field("max_fault_call", bound->max_fault_call);
    out.List("vocabulary", words);
    out.Field("strategy", base.strategy).Field("bound", base.strategy_params.preemption_bound);
    out.Field("scenario_executions", per_scenario);
  }

  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = time_budget == absl::InfiniteDuration()
                                         ? Clock::time_point::max()
                                         : start + absl::ToChronoNanoseconds(time_budget);
  const std::uint64_t budget = max_executions == 0 ? ~std::uint64_t{0} : max_executions;
  std::uint64_t total = 0;
  std::size_t exhausted = 0, violating = 0;
  bool failed = false;
  bool out_of_time = false;
  bool interrupted = false;  // a signal (cli/interrupt.h) stopped it
  std::map<std::string, FirstMet> findings, known_met;
  std::vector<ScenarioOutcome> outcomes;
  std::vector<std::string> not_monitored;

  const double interval_s = isatty(STDERR_FILENO) ? 2 : 10;
  double last_progress = 0;
  std::uint64_t last_total = 0;
  auto progress = [&](std::size_t index, std::uint64_t in_scenario) {
    const double now = SecondsSince(start);
    if (now - last_progress < interval_s) return;
    const std::uint64_t executions = total + in_scenario;
    absl::FPrintF(stderr, "check: scenario %d, %d executions in %.0f s (%.0f executions/s)\n",
                  index + 1, executions, now,
                  static_cast<double>(executions - last_total) / (now - last_progress));
    last_progress = now;
    last_total = executions;
  };

  std::size_t i = 0;
  bool every_scenario = true;  // the enumeration ran to its end
  const absl::Status visited =
      properties::VisitScope(*bound, [&](const properties::ScopeScenario& scenario) {
        if (total >= budget) return every_scenario = false;
        if (Clock::now() >= deadline) {
          out_of_time = true;
          return every_scenario = false;
        }
        if (base.interrupt != nullptr && base.interrupt->load()) {
          interrupted = true;
          return every_scenario = false;
        }
        properties::ExploreSpec spec = base;
        spec.test_case = scenario.test_case;
        spec.max_executions = std::min(per_scenario, budget - total);
        if (deadline != Clock::time_point::max()) {
          spec.time_budget = absl::FromChrono(deadline - Clock::now());
        }
        spec.on_progress = [&progress, i](const properties::ExploreProgress& p) {
          progress(i, p.executions);
        };
        ScenarioOutcome o;
        o.label = scenario.label;
        const properties::ExploreReport r = properties::Explore(spec);
        if (i == 0) not_monitored = r.not_monitored;
        o.executions = r.executions;
        o.exhausted = r.exhausted;
        o.seconds = r.seconds;
        if (r.first() != nullptr) o.violation = *r.first();
        out_of_time = out_of_time || r.out_of_time;
        interrupted = interrupted || r.interrupted;
        total += r.executions;
        exhausted += r.exhausted;
        if (!r.status.ok()) {
          absl::FPrintF(stderr, "stackcheck: scenario %d %s: %s\n", i + 1, o.label,
                        r.status.message());
          failed = true;
        }
        violating += !r.findings.empty();
        auto record = [&](const std::vector<properties::Finding>& fs,
                          std::map<std::string, FirstMet>& into) {
          for (const properties::Finding& f : fs) {
            into.emplace(f.violation.fingerprint,
                         FirstMet{f.violation.property, f.known, i + 1, o.label, f.token});
          }
        };
        record(r.findings, findings);
        record(r.known_met, known_met);
        out.Note(absl::StrFormat("scenario %d %s: executions %d exhausted %s violation %s", i + 1,
                                 o.label, o.executions, o.exhausted ? "yes" : "no",
                                 ViolationText(o.violation)));
        outcomes.push_back(std::move(o));
        ++i;
        return true;
      });
  if (!visited.ok()) return UsageError(visited.message());

  if (out.json()) {
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
  std::size_t new_count = 0;
  for (const auto& [fp, m] : findings) new_count += !m.known;
  out.List("not_monitored", not_monitored);
  // How many scenarios the bound holds is known only when all were run.
  if (every_scenario) out.Field("scenarios", static_cast<std::uint64_t>(outcomes.size()));
  out.Field("scenarios_run", static_cast<std::uint64_t>(outcomes.size()));
  out.Field("scenarios_exhausted", static_cast<std::uint64_t>(exhausted));
  out.Field("executions", total);
  out.Field("exhausted", every_scenario && exhausted == outcomes.size());
  if (out_of_time) out.Field("out_of_time", true);
  if (interrupted) out.Field("stopped_by", "signal");
  out.Seconds("seconds", SecondsSince(start));
  out.Field("violating_scenarios", static_cast<std::uint64_t>(violating));
  WriteFingerprints("findings", findings, out);
  WriteFingerprints("known_met", known_met, out);
  out.Field("new", static_cast<std::uint64_t>(new_count));
  return failed || new_count > 0 ? kExitMismatch : kExitOk;
}

}  // namespace stackcheck::cli
