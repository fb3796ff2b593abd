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

}  // namespace

std::string ChromeTraceJson(absl::Span<const Event> events,
                            absl::Span<const std::string> actor_names, const Violation* violation) {
  TraceWriter w;
  w.Metadata(kHostPid, 0, "process_name", "host threads and driver callbacks");
  w.Metadata(kGpuPid, 0, "process_name", "GPU streams");

  std::uint32_t max_actor = 0;
  std::uint32_t max_stream = 0;
  bool any_stream = false;
  bool anonymous = false;
  for (const Event& e : events) {
    if (e.actor == kNoActor) {
      anonymous = true;
    } else {
      max_actor = std::max(max_actor, e.actor + 1);
    }
    if (e.kind == EventKind::kKernelEnqueue || e.kind == EventKind::kKernelStart) {
      any_stream = true;
      max_stream = std::max(max_stream, e.b);
    }
  }
  const std::size_t named_actors = std::max<std::size_t>(actor_names.size(), max_actor);
  for (std::size_t a = 0; a < named_actors; ++a) {
    w.Metadata(kHostPid, static_cast<std::int64_t>(a), "thread_name",
               a < actor_names.size() ? absl::string_view(actor_names[a]) : absl::StrCat("#", a));
  }
  // Events without an actor go to track -1.
  if (anonymous) w.Metadata(kHostPid, -1, "thread_name", "(no actor)");
  if (any_stream) {
    for (std::uint32_t s = 0; s <= max_stream; ++s) {
      w.Metadata(kGpuPid, s, "thread_name",
                 s == 0 ? std::string("stream 0 (legacy)") : absl::StrCat("stream ", s));
    }
  }

  const auto tid_of = [](const Event& e) -> std::int64_t {
    return e.actor == kNoActor ? -1 : static_cast<std::int64_t>(e.actor);
  };
  // Slices in progress, keyed by what closes them; ordered maps so that the
  // output is the same bytes on every run.
  std::map<std::uint32_t, Opened> kernels;  // kernel id
  std::map<std::uint32_t, std::string> kernel_names;
  std::map<std::int64_t, Opened> callbacks;      // actor
  std::map<std::int64_t, Opened> regions;        // actor
  std::map<std::int64_t, Opened> blocked_calls;  // actor
  std::map<std::int64_t, Opened> mutex_waits;    // actor
  std::map<std::uint32_t, bool> mutex_held;      // mutex id
  const std::uint64_t last_ns = events.empty() ? 0 : events.back().time_ns;

  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const std::int64_t tid = tid_of(e);
    const std::string args = EventArgs(i, e, actor_names);
    switch (e.kind) {
      case EventKind::kKernelEnqueue:
        kernel_names[e.a] = absl::StrCat(
            "kernel ", e.a,
            e.c == 0 ? std::string(" (no region)") : absl::StrCat(" (region ", e.c, ")"));
        w.Instant(kHostPid, tid, absl::StrCat("enqueue kernel ", e.a), "launch", e.time_ns, 't',
                  args);
        break;
      case EventKind::kKernelStart:
        kernels[e.a] = Opened{i, e.time_ns};
        break;
      case EventKind::kKernelEnd:
      case EventKind::kKernelDropped: {
        const std::string& name = kernel_names[e.a];
        auto it = kernels.find(e.a);
        if (it != kernels.end()) {
          w.Complete(kGpuPid, e.b, name.empty() ? "kernel" : name, "kernel", it->second.start_ns,
                     e.time_ns, absl::StrCat("\"start_event\":", it->second.index, ",", args));
          kernels.erase(it);
        } else {
          w.Instant(kGpuPid, e.b, absl::StrCat(EventKindName(e.kind), " ", e.a), "kernel",
                    e.time_ns, 't', args);
        }
        break;
      }
      case EventKind::kCallbackStart:
      case EventKind::kHostFnStart:
        callbacks[tid] = Opened{i, e.time_ns};
        break;
      case EventKind::kCallbackEnd:
      case EventKind::kHostFnEnd: {
        auto it = callbacks.find(tid);
        const bool cb = e.kind == EventKind::kCallbackEnd;
        const std::string name =
            absl::StrCat(cb ? "callback " : "host fn ", e.b, " (stream ", e.a, ")");
        if (it != callbacks.end()) {
          w.Complete(kHostPid, tid, name, "callback", it->second.start_ns, e.time_ns,
                     absl::StrCat("\"start_event\":", it->second.index, ",", args));
          callbacks.erase(it);
        }
        break;
      }
      case EventKind::kRegionBegin:
        regions[tid] = Opened{i, e.time_ns};
        break;
      case EventKind::kRegionEnd: {
        auto it = regions.find(tid);
        if (it != regions.end()) {
          w.Complete(kHostPid, tid, absl::StrCat("run(region ", e.c, ")"), "region",
                     it->second.start_ns, e.time_ns,
                     absl::StrCat("\"start_event\":", it->second.index, ",", args));
          regions.erase(it);
        }
        break;
      }
      case EventKind::kDriverCallBlock:
        blocked_calls[tid] = Opened{i, e.time_ns};
        break;
      case EventKind::kDriverCall: {
        const absl::string_view api = DriverCallName(static_cast<DriverCall>(e.a));
        auto it = blocked_calls.find(tid);
        if (it != blocked_calls.end()) {
          w.Complete(kHostPid, tid, api, "driver", it->second.start_ns, e.time_ns,
                     absl::StrCat("\"blocked_at_event\":", it->second.index, ",", args));
          blocked_calls.erase(it);
        } else {
          w.Instant(kHostPid, tid, api, "driver", e.time_ns, 't', args);
        }
        break;
      }
      case EventKind::kMutexBlock:
        mutex_waits[tid] = Opened{i, e.time_ns};
        break;
      case EventKind::kMutexLock:
      case EventKind::kMutexPass: {
        auto it = mutex_waits.find(tid);
        if (it != mutex_waits.end()) {
          w.Complete(kHostPid, tid, absl::StrCat("wait for mutex ", e.a), "mutex",
                     it->second.start_ns, e.time_ns,
                     absl::StrCat("\"blocked_at_event\":", it->second.index, ",", args));
          mutex_waits.erase(it);
        }
        if (e.kind == EventKind::kMutexPass) {  // locked and unlocked in one step
          w.Instant(kHostPid, tid, absl::StrCat("pass mutex ", e.a), "mutex", e.time_ns, 't', args);
          break;
        }
        w.Async('b', kHostPid, tid, absl::StrCat("mutex ", e.a), "mutex", e.a, e.time_ns, args);
        mutex_held[e.a] = true;
        break;
      }
      case EventKind::kMutexUnlock:
        if (mutex_held[e.a]) {
          w.Async('e', kHostPid, tid, absl::StrCat("mutex ", e.a), "mutex", e.a, e.time_ns, args);
          mutex_held[e.a] = false;
        } else {
          w.Instant(kHostPid, tid, "unlock of a free mutex", "mutex", e.time_ns, 't', args);
        }
        break;
      case EventKind::kStickyError:
        w.Instant(kGpuPid, 0, absl::StrCat("sticky error ", FormatResult(e.x)), "error", e.time_ns,
                  'g', args);
        break;
      default:
        w.Instant(kHostPid, tid, EventKindName(e.kind), std::string(EventKindName(e.kind)),
                  e.time_ns, 't', args);
        break;
    }
  }

  // Close what the execution left open (it stopped at a violation or a
  // deadlock), so the viewer still shows it.
  const std::string unfinished = "\"unfinished\":true";
  for (const auto& [id, open] : kernels) {
    const std::string& name = kernel_names[id];
    w.Complete(kGpuPid, events[open.index].b, name.empty() ? "kernel" : name, "kernel",
               open.start_ns, last_ns, absl::StrCat(unfinished, ",\"start_event\":", open.index));
  }
  for (const auto& [tid, open] : callbacks) {
    w.Complete(kHostPid, tid, FormatEvent(events[open.index]), "callback", open.start_ns, last_ns,
               absl::StrCat(unfinished, ",\"start_event\":", open.index));
  }
  for (const auto& [tid, open] : regions) {
    w.Complete(kHostPid, tid, absl::StrCat("run(region ", events[open.index].c, ")"), "region",
               open.start_ns, last_ns, absl::StrCat(unfinished, ",\"start_event\":", open.index));
  }
  for (const auto& [tid, open] : blocked_calls) {
    w.Complete(kHostPid, tid, DriverCallName(static_cast<DriverCall>(events[open.index].a)),
               "driver", open.start_ns, last_ns,
               absl::StrCat(unfinished, ",\"blocked_at_event\":", open.index));
  }
  for (const auto& [tid, open] : mutex_waits) {
    w.Complete(kHostPid, tid, absl::StrCat("wait for mutex ", events[open.index].a), "mutex",
               open.start_ns, last_ns,
               absl::StrCat(unfinished, ",\"blocked_at_event\":", open.index));
  }
  for (const auto& [id, held] : mutex_held) {
    if (held) {
      w.Async('e', kHostPid, 0, absl::StrCat("mutex ", id), "mutex", id, last_ns, unfinished);
    }
  }

  if (violation != nullptr) {
    const std::uint64_t at =
        violation->event_index < events.size() ? events[violation->event_index].time_ns : last_ns;
    w.Instant(kHostPid, 0, absl::StrCat("VIOLATION ", violation->property), "violation", at, 'g',
              absl::StrCat("\"event\":", violation->event_index, ",",
                           Arg("message", violation->message)));
  }
  return std::move(w).Finish();
}

}  // namespace stackcheck::sim
