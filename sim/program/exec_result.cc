#include "sim/program/exec_result.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/sim_host.h"
#include "sim/simulator.h"
#include "sim/trace/chrome_trace.h"
#include "sim/trace/named_format.h"

namespace stackcheck::program {
namespace {

using nlohmann::json;

// An event with every name the run knows: actors, mutexes, wait queues and
// the program's call names.
std::string Describe(const sim::Simulator& simulator, const sim::SimHost& host, const sim::Event& e,
                     const std::vector<std::string>& actors) {
  switch (e.kind) {
    case sim::EventKind::kProgramCall: {
      const auto call = e.As<sim::payload::ProgramCall>();
      return absl::StrCat("call ", simulator.view().MessageText(call.name), " -> ", call.result);
    }
    case sim::EventKind::kWaitQueueBlock:
    case sim::EventKind::kWaitQueueWake:
      return absl::StrCat(sim::FormatEventNamed(e, actors), " (",
                          host.WaitQueueName(e.As<sim::payload::WaitQueue>().queue), ")");
    case sim::EventKind::kMutexCreate:
    case sim::EventKind::kMutexLock:
    case sim::EventKind::kMutexBlock:
    case sim::EventKind::kMutexTryLockFail:
    case sim::EventKind::kMutexPass:
    case sim::EventKind::kMutexPassEnd:
    case sim::EventKind::kMutexUnlock:
    case sim::EventKind::kMutexDestroy:
      return absl::StrCat(sim::FormatEventNamed(e, actors), " '",
                          simulator.MutexName(e.As<sim::payload::Mutex>().mutex), "'");
    default:
      return sim::FormatEventNamed(e, actors);
  }
}

}  // namespace

ExecReport DescribeExecution(const sim::Simulator& simulator, const sim::SimHost& host,
                             const sim::ExecutionResult& result, bool chrome_trace) {
  ExecReport report;
  // The first violation: one the execution went past (a destroy of a held
  // mutex, program_threads.cc) came before the one that ended it, which is
  // often its consequence (the thread whose lock was destroyed fails, exits).
  const sim::Violation* shown = !result.passed.empty() ? &result.passed.front()
                                : result.violation     ? &*result.violation
                                                       : nullptr;
  if (shown != nullptr) {
    const sim::Violation& v = *shown;
    report.verdict = "violation";
    report.property = v.property;
    report.message = v.message;
    report.fingerprint = v.fingerprint;
    for (const sim::WaitLink& w : v.waits) report.waits.push_back(w.text);
    report.waits_form_cycle = v.waits_form_cycle;
  }
  report.choices = result.choices;
  report.digest = result.digest;
  report.steps = result.steps;
  std::vector<std::string> actors;
  for (sim::ActorId a = 0; a < 64; ++a) actors.emplace_back(simulator.ActorName(a));
  for (const sim::Event& e : result.trace) {
    report.timeline.push_back(
        TimelineEvent{e.time_ns, e.actor < actors.size() ? actors[e.actor] : std::string("-"),
                      Describe(simulator, host, e, actors)});
  }
  if (chrome_trace) report.chrome_trace = sim::ChromeTraceJson(result.trace, actors, shown);
  return report;
}

std::string FormatTimelineEvent(const TimelineEvent& e) {
  return absl::StrFormat("%12s  %-9s %s", sim::FormatTime(e.ns), e.actor, e.text);
}

std::string OneLine(const ExecReport& r) {
  std::string line;
  if (r.verdict == "clean") {
    line = absl::StrFormat("no violation, %u steps, digest %016x", r.steps, r.digest);
  } else {
    line =
        absl::StrCat(r.verdict == "stuck" ? "STUCK " : "VIOLATION ", r.property, ": ", r.message);
    // A violation the execution went past (a destroy of a held mutex).
    if (r.exit_status >= 0)
      absl::StrAppend(&line, "; the program went on and exited ", r.exit_status);
  }
  if (!r.replay_status.empty()) absl::StrAppend(&line, "; ", r.replay_status);
  return line;
}

absl::Status WriteReport(const ExecReport& r, const std::string& path) {
  json timeline = json::array();
  for (const TimelineEvent& e : r.timeline) timeline.push_back({e.ns, e.actor, e.text});
  json calls = json::array();
  for (const CallRecord& c : r.calls) {
    calls.push_back({c.thread, std::string(KindName(c.kind)), c.function, c.detail});
  }
  json j = {{"verdict", r.verdict},
            {"property", r.property},
            {"message", r.message},
            {"fingerprint", r.fingerprint},
            {"waits", r.waits},
            {"waits_form_cycle", r.waits_form_cycle},
            {"replay_status", r.replay_status},
            {"exit_status", r.exit_status},
            {"strategy", r.strategy},
            {"seed", r.seed},
            {"faults", r.faults},
            {"choices", r.choices},
            {"sequence", r.sequence},
            {"preemptions", r.preemptions},
            {"point_widths", r.point_widths},
            {"point_preempts", r.point_preempts},
            {"digest", absl::StrFormat("%016x", r.digest)},
            {"steps", r.steps},
            {"timeline", timeline},
            {"calls", calls},
            {"chrome_trace", r.chrome_trace}};
  std::ofstream out(path);
  out << j.dump(1) << "\n";
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<ExecReport> ReadReport(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("no result file ", path));
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::DataLossError(absl::StrCat(path, ": not a result (malformed JSON)"));
  }
  ExecReport r;
  try {
    r.verdict = j.at("verdict").get<std::string>();
    r.property = j.at("property").get<std::string>();
    r.message = j.at("message").get<std::string>();
    r.fingerprint = j.at("fingerprint").get<std::string>();
    r.waits = j.at("waits").get<std::vector<std::string>>();
    r.waits_form_cycle = j.at("waits_form_cycle").get<bool>();
    r.replay_status = j.at("replay_status").get<std::string>();
    r.exit_status = j.at("exit_status").get<int>();
    r.strategy = j.at("strategy").get<std::string>();
    r.seed = j.at("seed").get<std::uint64_t>();
    r.faults = j.at("faults").get<std::string>();
    r.choices = j.at("choices").get<std::vector<std::uint64_t>>();
    r.sequence = j.at("sequence").get<std::vector<std::uint64_t>>();
    r.preemptions = j.at("preemptions").get<std::uint64_t>();
    r.point_widths = j.at("point_widths").get<std::vector<std::uint64_t>>();
    r.point_preempts = j.at("point_preempts").get<std::vector<bool>>();
    r.digest = std::stoull(j.at("digest").get<std::string>(), nullptr, 16);
    r.steps = j.at("steps").get<std::uint64_t>();
    r.chrome_trace = j.at("chrome_trace").get<std::string>();
    for (const json& e : j.at("timeline")) {
      r.timeline.push_back(TimelineEvent{e.at(0).get<std::uint64_t>(), e.at(1).get<std::string>(),
                                         e.at(2).get<std::string>()});
    }
    for (const json& c : j.at("calls")) {
      const std::optional<CallRecord::Kind> kind = KindNamed(c.at(1).get<std::string>());
      if (!kind) return absl::DataLossError(absl::StrCat(path, ": a call of an unknown kind"));
      r.calls.push_back(CallRecord{c.at(0).get<std::string>(), *kind, c.at(2).get<std::string>(),
                                   c.at(3).get<std::string>()});
    }
  } catch (const std::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": not a result (", e.what(), ")"));
  }
  return r;
}

}  // namespace stackcheck::program
