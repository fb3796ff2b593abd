#include "sim/trace/chrome_trace.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "sim/driver_api.h"
#include "sim/event_format.h"
#include "sim/event_payloads.h"
#include "sim/trace/named_format.h"

namespace stackcheck::sim {
namespace {

constexpr int kHostPid = 1;
constexpr int kGpuPid = 2;

// A JSON string literal, escaped by nlohmann-json as the --json writer's are;
// bytes that are not UTF-8 become U+FFFD.
std::string JsonString(absl::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Trace Event Format timestamps are microseconds; keep every nanosecond.
std::string Micros(std::uint64_t ns) { return absl::StrFormat("%d.%03d", ns / 1000, ns % 1000); }

// Accumulates the "traceEvents" array.
class TraceWriter {
 public:
  void Metadata(int pid, std::int64_t tid, absl::string_view what, absl::string_view name) {
    Open();
    absl::StrAppend(&out_, "{\"ph\":\"M\",\"pid\":", pid, ",\"tid\":", tid,
                    ",\"name\":", JsonString(what), ",\"args\":{\"name\":", JsonString(name), "}}");
  }
  void Complete(int pid, std::int64_t tid, absl::string_view name, absl::string_view cat,
                std::uint64_t start_ns, std::uint64_t end_ns, absl::string_view args_json) {
    Open();
    absl::StrAppend(&out_, "{\"ph\":\"X\",\"pid\":", pid, ",\"tid\":", tid,
                    ",\"name\":", JsonString(name), ",\"cat\":", JsonString(cat),
                    ",\"ts\":", Micros(start_ns),
                    ",\"dur\":", Micros(end_ns >= start_ns ? end_ns - start_ns : 0), ",\"args\":{",
                    args_json, "}}");
  }
  // scope: "t" thread, "p" process, "g" global.
  void Instant(int pid, std::int64_t tid, absl::string_view name, absl::string_view cat,
               std::uint64_t ts_ns, char scope, absl::string_view args_json) {
    Open();
    absl::StrAppend(&out_, "{\"ph\":\"i\",\"s\":\"", std::string(1, scope), "\",\"pid\":", pid,
                    ",\"tid\":", tid, ",\"name\":", JsonString(name), ",\"cat\":", JsonString(cat),
                    ",\"ts\":", Micros(ts_ns), ",\"args\":{", args_json, "}}");
  }
  // Async (nestable) begin 'b' or end 'e', matched by cat and id.
  void Async(char phase, int pid, std::int64_t tid, absl::string_view name, absl::string_view cat,
             std::uint64_t id, std::uint64_t ts_ns, absl::string_view args_json) {
    Open();
    absl::StrAppend(&out_, "{\"ph\":\"", std::string(1, phase), "\",\"pid\":", pid,
                    ",\"tid\":", tid, ",\"name\":", JsonString(name), ",\"cat\":", JsonString(cat),
                    ",\"id\":", id, ",\"ts\":", Micros(ts_ns), ",\"args\":{", args_json, "}}");
  }
  std::string Finish() && {
    out_ += "],\"displayTimeUnit\":\"ns\"}\n";
    return std::move(out_);
  }

 private:
  void Open() {
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('\n');
  }

  std::string out_ = "{\"traceEvents\":[";
  bool first_ = true;
};

std::string Arg(absl::string_view key, absl::string_view value) {
  return absl::StrCat(JsonString(key), ":", JsonString(value));
}

std::string EventArgs(std::size_t index, const Event& e,
                      absl::Span<const std::string> actor_names) {
  return absl::StrCat("\"event\":", index, ",", Arg("what", FormatEventNamed(e, actor_names)));
}

// Something that began and has not ended yet.
struct Opened {
  std::size_t index = 0;
  std::uint64_t start_ns = 0;
};

// Writes a trace's events as slices (what began and ended) and instants.
class ChromeTraceBuilder {
 public:
  ChromeTraceBuilder(absl::Span<const Event> events, absl::Span<const std::string> actor_names)
      : events_(events),
        actor_names_(actor_names),
        last_ns_(events.empty() ? 0 : events.back().time_ns) {}

  // One track per actor and per stream the events name.
  void NameTracks();
  void Add(std::size_t i);
  // Closes what the execution left open (it stopped at a violation or a
  // deadlock), so the viewer still shows it.
  void CloseUnfinished();
  void MarkViolation(const Violation& violation);
  std::string Finish() && { return std::move(w_).Finish(); }

 private:
  void KernelEnqueued(const Event& e, std::int64_t tid, const std::string& args);
  void KernelEnded(const Event& e, const std::string& args);
  void CallbackEnded(const Event& e, std::int64_t tid, const std::string& args);
  void RegionEnded(const Event& e, std::int64_t tid, const std::string& args);
  void DriverCallReturned(const Event& e, std::int64_t tid, const std::string& args);
  void MutexTaken(const Event& e, std::int64_t tid, const std::string& args);
  void MutexUnlocked(const Event& e, std::int64_t tid, const std::string& args);

  const absl::Span<const Event> events_;
  const absl::Span<const std::string> actor_names_;
  const std::uint64_t last_ns_;
  TraceWriter w_;
  // Slices in progress, keyed by what closes them; ordered maps so that the
  // output is the same bytes on every run.
  std::map<std::uint32_t, Opened> kernels_;  // kernel id
  std::map<std::uint32_t, std::string> kernel_names_;
  std::map<std::int64_t, Opened> callbacks_;      // actor
  std::map<std::int64_t, Opened> regions_;        // actor
  std::map<std::int64_t, Opened> blocked_calls_;  // actor
  std::map<std::int64_t, Opened> mutex_waits_;    // actor
  std::map<std::uint32_t, bool> mutex_held_;      // mutex id
};

void ChromeTraceBuilder::NameTracks() {
  w_.Metadata(kHostPid, 0, "process_name", "host threads and driver callbacks");
  w_.Metadata(kGpuPid, 0, "process_name", "GPU streams");
  std::uint32_t max_actor = 0;
  std::uint32_t max_stream = 0;
  bool any_stream = false;
  bool anonymous = false;
  for (const Event& e : events_) {
    if (e.actor == kNoActor) {
      anonymous = true;
    } else {
      max_actor = std::max(max_actor, e.actor + 1);
    }
    // Only kernels are drawn on a stream's track; callbacks, host functions
    // and CUDA events name a stream too but are drawn on their actor's.
    if (e.kind == EventKind::kKernelEnqueue || e.kind == EventKind::kKernelStart) {
      any_stream = true;
      max_stream = std::max(max_stream, e.As<payload::Kernel>().stream);
    }
  }
  const std::size_t named_actors = std::max<std::size_t>(actor_names_.size(), max_actor);
  for (std::size_t a = 0; a < named_actors; ++a) {
    w_.Metadata(
        kHostPid, static_cast<std::int64_t>(a), "thread_name",
        a < actor_names_.size() ? absl::string_view(actor_names_[a]) : absl::StrCat("#", a));
  }
  // Events without an actor go to track -1.
  if (anonymous) w_.Metadata(kHostPid, -1, "thread_name", "(no actor)");
  if (any_stream) {
    for (std::uint32_t s = 0; s <= max_stream; ++s) {
      w_.Metadata(kGpuPid, s, "thread_name",
                  s == 0 ? std::string("stream 0 (legacy)") : absl::StrCat("stream ", s));
    }
  }
}

void ChromeTraceBuilder::Add(std::size_t i) {
  const Event& e = events_[i];
  const std::int64_t tid = e.actor == kNoActor ? -1 : static_cast<std::int64_t>(e.actor);
  const std::string args = EventArgs(i, e, actor_names_);
  switch (e.kind) {
    case EventKind::kKernelEnqueue:
      KernelEnqueued(e, tid, args);
      break;
    case EventKind::kKernelStart:
      kernels_[e.As<payload::Kernel>().kernel] = Opened{i, e.time_ns};
      break;
    case EventKind::kKernelEnd:
    case EventKind::kKernelDropped:
      KernelEnded(e, args);
      break;
    case EventKind::kCallbackStart:
    case EventKind::kHostFnStart:
      callbacks_[tid] = Opened{i, e.time_ns};
      break;
    case EventKind::kCallbackEnd:
    case EventKind::kHostFnEnd:
      CallbackEnded(e, tid, args);
      break;
    case EventKind::kRegionBegin:
      regions_[tid] = Opened{i, e.time_ns};
      break;
    case EventKind::kRegionEnd:
      RegionEnded(e, tid, args);
      break;
    case EventKind::kDriverCallBlock:
      blocked_calls_[tid] = Opened{i, e.time_ns};
      break;
    case EventKind::kDriverCall:
      DriverCallReturned(e, tid, args);
      break;
    case EventKind::kMutexBlock:
      mutex_waits_[tid] = Opened{i, e.time_ns};
      break;
    case EventKind::kMutexLock:
    case EventKind::kMutexPass:
      MutexTaken(e, tid, args);
      break;
    case EventKind::kMutexUnlock:
      MutexUnlocked(e, tid, args);
      break;
    case EventKind::kStickyError:
      w_.Instant(kGpuPid, 0,
                 absl::StrCat("sticky error ", FormatResult(e.As<payload::StickyError>().code)),
                 "error", e.time_ns, 'g', args);
      break;
    default:
      w_.Instant(kHostPid, tid, EventKindName(e.kind), std::string(EventKindName(e.kind)),
                 e.time_ns, 't', args);
      break;
  }
}

void ChromeTraceBuilder::KernelEnqueued(const Event& e, std::int64_t tid, const std::string& args) {
  const auto kernel = e.As<payload::Kernel>();
  kernel_names_[kernel.kernel] =
      absl::StrCat("kernel ", kernel.kernel,
                   kernel.region_tag == 0 ? std::string(" (no region)")
                                          : absl::StrCat(" (region ", kernel.region_tag, ")"));
  w_.Instant(kHostPid, tid, absl::StrCat("enqueue kernel ", kernel.kernel), "launch", e.time_ns,
             't', args);
}

void ChromeTraceBuilder::KernelEnded(const Event& e, const std::string& args) {
  const auto kernel = e.As<payload::Kernel>();  // kKernelEnd or kKernelDropped
  const std::string& name = kernel_names_[kernel.kernel];
  auto it = kernels_.find(kernel.kernel);
  if (it != kernels_.end()) {
    w_.Complete(kGpuPid, kernel.stream, name.empty() ? "kernel" : name, "kernel",
                it->second.start_ns, e.time_ns,
                absl::StrCat("\"start_event\":", it->second.index, ",", args));
    kernels_.erase(it);
  } else {
    w_.Instant(kGpuPid, kernel.stream, absl::StrCat(EventKindName(e.kind), " ", kernel.kernel),
               "kernel", e.time_ns, 't', args);
  }
}

void ChromeTraceBuilder::CallbackEnded(const Event& e, std::int64_t tid, const std::string& args) {
  auto it = callbacks_.find(tid);
  const bool cb = e.kind == EventKind::kCallbackEnd;
  const auto work = e.As<payload::StreamWork>();
  const std::string name =
      absl::StrCat(cb ? "callback " : "host fn ", work.id, " (stream ", work.stream, ")");
  if (it != callbacks_.end()) {
    w_.Complete(kHostPid, tid, name, "callback", it->second.start_ns, e.time_ns,
                absl::StrCat("\"start_event\":", it->second.index, ",", args));
    callbacks_.erase(it);
  }
}

void ChromeTraceBuilder::RegionEnded(const Event& e, std::int64_t tid, const std::string& args) {
  auto it = regions_.find(tid);
  if (it != regions_.end()) {
    w_.Complete(kHostPid, tid, absl::StrCat("run(region ", e.As<payload::Region>().region, ")"),
                "region", it->second.start_ns, e.time_ns,
                absl::StrCat("\"start_event\":", it->second.index, ",", args));
    regions_.erase(it);
  }
}

void ChromeTraceBuilder::DriverCallReturned(const Event& e, std::int64_t tid,
                                            const std::string& args) {
  const absl::string_view api = DriverCallName(e.As<payload::Call>().call);
  auto it = blocked_calls_.find(tid);
  if (it != blocked_calls_.end()) {
    w_.Complete(kHostPid, tid, api, "driver", it->second.start_ns, e.time_ns,
                absl::StrCat("\"blocked_at_event\":", it->second.index, ",", args));
    blocked_calls_.erase(it);
  } else {
    w_.Instant(kHostPid, tid, api, "driver", e.time_ns, 't', args);
  }
}

void ChromeTraceBuilder::MutexTaken(const Event& e, std::int64_t tid, const std::string& args) {
  const std::uint32_t mutex = e.As<payload::Mutex>().mutex;  // kMutexLock or kMutexPass
  auto it = mutex_waits_.find(tid);
  if (it != mutex_waits_.end()) {
    w_.Complete(kHostPid, tid, absl::StrCat("wait for mutex ", mutex), "mutex", it->second.start_ns,
                e.time_ns, absl::StrCat("\"blocked_at_event\":", it->second.index, ",", args));
    mutex_waits_.erase(it);
  }
  if (e.kind == EventKind::kMutexPass) {  // locked and unlocked in one step
    w_.Instant(kHostPid, tid, absl::StrCat("pass mutex ", mutex), "mutex", e.time_ns, 't', args);
    return;
  }
  w_.Async('b', kHostPid, tid, absl::StrCat("mutex ", mutex), "mutex", mutex, e.time_ns, args);
  mutex_held_[mutex] = true;
}

void ChromeTraceBuilder::MutexUnlocked(const Event& e, std::int64_t tid, const std::string& args) {
  const std::uint32_t mutex = e.As<payload::Mutex>().mutex;
  if (mutex_held_[mutex]) {
    w_.Async('e', kHostPid, tid, absl::StrCat("mutex ", mutex), "mutex", mutex, e.time_ns, args);
    mutex_held_[mutex] = false;
  } else {
    w_.Instant(kHostPid, tid, "unlock of a free mutex", "mutex", e.time_ns, 't', args);
  }
}

void ChromeTraceBuilder::CloseUnfinished() {
  const std::string unfinished = "\"unfinished\":true";
  for (const auto& [id, open] : kernels_) {
    const std::string& name = kernel_names_[id];
    // Opened by a kKernelStart.
    w_.Complete(kGpuPid, events_[open.index].As<payload::Kernel>().stream,
                name.empty() ? "kernel" : name, "kernel", open.start_ns, last_ns_,
                absl::StrCat(unfinished, ",\"start_event\":", open.index));
  }
  for (const auto& [tid, open] : callbacks_) {
    w_.Complete(kHostPid, tid, FormatEvent(events_[open.index]), "callback", open.start_ns,
                last_ns_, absl::StrCat(unfinished, ",\"start_event\":", open.index));
  }
  for (const auto& [tid, open] : regions_) {
    w_.Complete(kHostPid, tid,
                absl::StrCat("run(region ", events_[open.index].As<payload::Region>().region, ")"),
                "region", open.start_ns, last_ns_,
                absl::StrCat(unfinished, ",\"start_event\":", open.index));
  }
  for (const auto& [tid, open] : blocked_calls_) {
    w_.Complete(kHostPid, tid, DriverCallName(events_[open.index].As<payload::Call>().call),
                "driver", open.start_ns, last_ns_,
                absl::StrCat(unfinished, ",\"blocked_at_event\":", open.index));
  }
  for (const auto& [tid, open] : mutex_waits_) {
    w_.Complete(kHostPid, tid,
                absl::StrCat("wait for mutex ", events_[open.index].As<payload::Mutex>().mutex),
                "mutex", open.start_ns, last_ns_,
                absl::StrCat(unfinished, ",\"blocked_at_event\":", open.index));
  }
  for (const auto& [id, held] : mutex_held_) {
    if (held) {
      w_.Async('e', kHostPid, 0, absl::StrCat("mutex ", id), "mutex", id, last_ns_, unfinished);
    }
  }
}

void ChromeTraceBuilder::MarkViolation(const Violation& violation) {
  const std::uint64_t at =
      violation.event_index < events_.size() ? events_[violation.event_index].time_ns : last_ns_;
  w_.Instant(
      kHostPid, 0, absl::StrCat("VIOLATION ", violation.property), "violation", at, 'g',
      absl::StrCat("\"event\":", violation.event_index, ",", Arg("message", violation.message)));
}

}  // namespace

std::string ChromeTraceJson(absl::Span<const Event> events,
                            absl::Span<const std::string> actor_names, const Violation* violation) {
  ChromeTraceBuilder trace(events, actor_names);
  trace.NameTracks();
  for (std::size_t i = 0; i < events.size(); ++i) trace.Add(i);
  trace.CloseUnfinished();
  if (violation != nullptr) trace.MarkViolation(*violation);
  return std::move(trace).Finish();
}

}  // namespace stackcheck::sim
