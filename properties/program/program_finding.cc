#include "properties/program/program_finding.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace stackcheck::properties {
namespace {

using Kind = RunOutcome::Kind;

absl::string_view BugOf(absl::string_view fingerprint) {
  const std::size_t fault = fingerprint.rfind("; fault ");
  return fault == absl::string_view::npos ? fingerprint : fingerprint.substr(0, fault);
}

sim::Violation Made(std::string property, std::string fingerprint, std::string message) {
  sim::Violation v;
  v.property = std::move(property);
  v.fingerprint = std::move(fingerprint);
  v.message = std::move(message);
  v.at_end = true;
  return v;
}

}  // namespace

bool Violated(const RunOutcome& o) {
  return o.kind != Kind::kFinished || o.report.verdict != "clean" ||
         !o.report.replay_status.empty();
}

sim::Violation ViolationOf(const RunOutcome& o) {
  switch (o.kind) {
    case Kind::kCrashed:
      return Made("no-crash", absl::StrCat("signal ", o.exit_status), Describe(o));
    case Kind::kTimedOut:
      return Made("progress", "killed after the watchdog's margin", Describe(o));
    case Kind::kStartFailed:
      return Made("start", absl::StrCat("exit ", o.exit_status), Describe(o));
    case Kind::kInternalError:
      return Made("internal-error", "a fault in stackcheck's library", Describe(o));
    case Kind::kStopped:
      return Made("stopped", "", Describe(o));
    case Kind::kFinished:
      break;
  }
  sim::Violation v = Made(o.report.property, o.report.fingerprint, o.report.message);
  v.at_end = false;
  // The process reports its waits as text; their threads are named in it.
  for (const std::string& w : o.report.waits) v.waits.push_back(sim::WaitLink{0, w});
  v.waits_form_cycle = o.report.waits_form_cycle;
  return v;
}

bool SameBug(const sim::Violation& a, const sim::Violation& b) {
  return a.property == b.property && BugOf(a.fingerprint) == BugOf(b.fingerprint);
}

std::string Describe(const RunOutcome& o) {
  switch (o.kind) {
    case Kind::kCrashed:
      return absl::StrCat("CRASH: the program died with signal ", o.exit_status);
    case Kind::kTimedOut:
      return "STUCK: the program did not end, even after the watchdog; killed";
    case Kind::kStartFailed:
      return absl::StrCat("the program exited with status ", o.exit_status, " without a result");
    case Kind::kInternalError:
      return "FAULT IN STACKCHECK'S LIBRARY, not in the program's code: an internal error of "
             "stackcheck's, or a bad pointer passed to the driver (the backtrace is above)";
    case Kind::kStopped:
      return "stopped by a signal or the time budget before it ended";
    case Kind::kFinished:
      break;
  }
  return program::OneLine(o.report);
}

std::string FormatOutcome(const RunOutcome& o, std::size_t timeline_tail) {
  const program::ExecReport& r = o.report;
  std::string out;
  if (!r.waits.empty()) {
    absl::StrAppend(&out, r.waits_form_cycle ? "wait-for cycle" : "waits (no cycle)", ":\n");
    for (const std::string& w : r.waits) absl::StrAppend(&out, "  ", w, "\n");
  }
  if (!r.fingerprint.empty()) absl::StrAppend(&out, "fingerprint: ", r.fingerprint, "\n");
  if (!r.timeline.empty()) {
    const std::size_t from =
        r.timeline.size() > timeline_tail ? r.timeline.size() - timeline_tail : 0;
    absl::StrAppendFormat(&out, "timeline (%s%u events):\n", from > 0 ? "last " : "",
                          r.timeline.size() - from);
    for (std::size_t i = from; i < r.timeline.size(); ++i) {
      absl::StrAppend(&out, "  ", program::FormatTimelineEvent(r.timeline[i]), "\n");
    }
  }
  if (!r.calls.empty()) {
    const std::size_t from = r.calls.size() > 16 ? r.calls.size() - 16 : 0;
    absl::StrAppendFormat(&out, "calls (%s%u, real names):\n", from > 0 ? "last " : "",
                          r.calls.size() - from);
    for (std::size_t i = from; i < r.calls.size(); ++i) {
      absl::StrAppend(&out, "  ", program::FormatCall(r.calls[i]), "\n");
    }
  }
  if (!o.output.empty()) {
    absl::StrAppend(&out, "program output (last lines):\n");
    std::string tail = o.output;
    if (tail.size() > 1200) tail = tail.substr(tail.size() - 1200);
    for (absl::string_view line : absl::StrSplit(tail, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&out, "  | ", line, "\n");
    }
  }
  return out;
}

CallCounts CountCalls(const program::ExecReport& r) {
  CallCounts counts;
  for (const program::CallRecord& call : r.calls) {
    if (call.kind != program::CallRecord::Kind::kDriver) continue;
    if (call.function == "cuLaunchKernel") ++counts.launches;
    if (call.function == "cuMemAlloc_v2") ++counts.allocs;
  }
  return counts;
}

}  // namespace stackcheck::properties
