#include "sim/fingerprint.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/cu_result.h"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {
namespace {

bool AllDigits(absl::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isdigit(c); });
}

bool InExitHandlers(ActorId actor, std::size_t index, const FingerprintFacts& facts) {
  return actor != kNoActor && actor == facts.exit_handlers_actor &&
         index >= facts.exit_handlers_from;
}

std::string ActorLabel(ActorId actor, std::size_t index, const FingerprintFacts& facts) {
  if (actor == kNoActor) return "nobody";
  std::string label(facts.actor_kind(actor));
  if (InExitHandlers(actor, index, facts)) label += " in exit handlers";
  return label;
}

// The names of the mutexes `actor` owns just before event `index`, sorted.
std::string HeldLocks(absl::Span<const Event> trace, std::size_t index, ActorId actor,
                      const FingerprintFacts& facts) {
  // Mutex ids are small and dense (one per Host::NewMutex of an execution).
  std::vector<ActorId> owner;
  for (std::size_t i = 0; i < index && i < trace.size(); ++i) {
    const Event& e = trace[i];
    if (e.kind != EventKind::kMutexLock && e.kind != EventKind::kMutexUnlock) continue;
    const std::uint32_t mutex = e.As<payload::Mutex>().mutex;
    if (mutex >= owner.size()) owner.resize(mutex + 1, kNoActor);
    // A destroyed mutex that was held stays locked (EBUSY): no event for it.
    owner[mutex] = e.kind == EventKind::kMutexLock ? e.actor : kNoActor;
  }
  std::set<std::string> names;
  for (std::uint32_t mutex = 0; mutex < owner.size(); ++mutex) {
    const ActorId who = owner[mutex];
    if (who != actor || actor == kNoActor) continue;
    absl::string_view name = facts.mutex_name(mutex);
    names.insert(name.empty() ? std::string("unnamed mutex") : std::string(name));
  }
  return absl::StrCat("{", absl::StrJoin(names, ", "), "}");
}

std::string Operation(absl::Span<const Event> trace, std::size_t index,
                      const FingerprintFacts& facts) {
  const Event& e = trace[index];
  switch (e.kind) {
    case EventKind::kDriverCall:
    case EventKind::kDriverCallBlock:
      return std::string(DriverCallName(e.As<payload::Call>().call));
    case EventKind::kMutexCreate:
    case EventKind::kMutexLock:
    case EventKind::kMutexBlock:
    case EventKind::kMutexTryLockFail:
    case EventKind::kMutexPass:
    case EventKind::kMutexPassEnd:
    case EventKind::kMutexUnlock:
    case EventKind::kMutexDestroy:
      return absl::StrCat(EventKindName(e.kind), " '",
                          facts.mutex_name(e.As<payload::Mutex>().mutex), "'");
    case EventKind::kSharedAccess:
      return absl::StrCat(EventKindName(e.kind),
                          e.As<payload::SharedAccess>().write ? " write" : " read");
    default:
      return std::string(EventKindName(e.kind));
  }
}

// "OP on ACTOR-KIND holding {LOCKS}" for the event at `index`.
std::string Site(absl::Span<const Event> trace, std::size_t index, const FingerprintFacts& facts) {
  const Event& e = trace[index];
  return absl::StrCat(Operation(trace, index, facts), " on ", ActorLabel(e.actor, index, facts),
                      " holding ", HeldLocks(trace, index, e.actor, facts));
}

// The first injected fault met at or before `index`.
absl::string_view FirstFault(absl::Span<const Event> trace, std::size_t index) {
  for (std::size_t i = 0; i <= index && i < trace.size(); ++i) {
    const Event& e = trace[i];
    if (e.kind == EventKind::kKernelEnd &&
        e.As<payload::KernelEnd>().result != CuResult::kSuccess) {
      return "abort";
    }
    if (e.kind == EventKind::kAllocFailed) return "out-of-memory";
    if (e.kind == EventKind::kDriverCall) {
      const auto call = e.As<payload::Call>();
      if (call.call == DriverCall::kLaunchKernel &&
          call.result == CuResult::kLaunchOutOfResources) {
        return "rejected launch";
      }
    }
  }
  return "none";
}

// A wait link with every actor name replaced by its kind and every number
// (callback, event and stream ids) dropped; the waiter is labelled as an
// actor (so "in exit handlers" shows).
std::string LinkShape(const WaitLink& link, std::size_t index, const FingerprintFacts& facts) {
  std::vector<std::string> words;
  bool first = true;
  for (absl::string_view word : absl::StrSplit(link.text, ' ', absl::SkipEmpty())) {
    const std::size_t last = word.find_last_not_of(",;)");
    const absl::string_view core =
        last == absl::string_view::npos ? absl::string_view() : word.substr(0, last + 1);
    const absl::string_view tail = word.substr(core.size());
    if (first) {
      words.push_back(ActorLabel(link.waiter, index, facts));
      first = false;
      continue;
    }
    if (absl::StartsWith(core, "#") && AllDigits(core.substr(1))) continue;
    absl::string_view kind = ActorKindOfName(core);
    words.push_back(kind.empty() ? std::string(word) : absl::StrCat(kind, tail));
  }
  return absl::StrJoin(words, " ");
}

std::string WaitShape(const Violation& v, absl::Span<const Event> trace,
                      const FingerprintFacts& facts) {
  const std::size_t at = trace.empty() ? 0 : trace.size() - 1;
  std::vector<std::string> links;
  for (const WaitLink& link : v.waits) links.push_back(LinkShape(link, at, facts));
  if (!v.waits_form_cycle) {
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    return absl::StrCat("waits without a cycle [", absl::StrJoin(links, "; "), "]");
  }
  // The rotation that starts at the smallest link (ties: smallest whole).
  std::string best;
  for (std::size_t r = 0; r < links.size(); ++r) {
    std::vector<std::string> rotated(links.begin() + r, links.end());
    rotated.insert(rotated.end(), links.begin(), links.begin() + r);
    std::string joined = absl::StrJoin(rotated, " -> ");
    if (r == 0 || joined < best) best = std::move(joined);
  }
  return absl::StrCat("cycle [", best, "]");
}

}  // namespace

absl::string_view ActorKindOfName(absl::string_view name) {
  if (absl::StartsWith(name, "T") && name.size() > 1 && AllDigits(name.substr(1))) {
    return "host thread";
  }
  if (absl::StartsWith(name, "callback") && AllDigits(name.substr(8))) return "callback thread";
  if (absl::StartsWith(name, "gpu:s") && name.size() > 5 && AllDigits(name.substr(5))) {
    return "gpu stream";
  }
  return {};
}

std::string Fingerprint(const Violation& violation, absl::Span<const Event> trace,
                        const FingerprintFacts& facts) {
  const std::size_t at = trace.empty() ? 0 : std::min(violation.event_index, trace.size() - 1);
  std::string out = absl::StrCat(violation.property, ": ");
  if (!violation.waits.empty()) {
    absl::StrAppend(&out, WaitShape(violation, trace, facts));
  } else if (violation.unordered_sites && violation.site_index.has_value() &&
             violation.cause_index.has_value() && *violation.site_index < trace.size() &&
             *violation.cause_index < trace.size()) {
    std::string a = Site(trace, *violation.site_index, facts);
    std::string b = Site(trace, *violation.cause_index, facts);
    if (b < a) std::swap(a, b);
    absl::StrAppend(&out, a, " and ", b, "; fault ", FirstFault(trace, at));
    return out;
  } else if (violation.site_index.has_value() && *violation.site_index < trace.size()) {
    absl::StrAppend(&out, Site(trace, *violation.site_index, facts));
  } else if (violation.at_end || trace.empty()) {
    absl::StrAppend(&out, "at the end");
  } else {
    absl::StrAppend(&out, Site(trace, at, facts));
  }
  if (violation.cause_index.has_value() && *violation.cause_index < trace.size()) {
    absl::StrAppend(&out, "; after ", Site(trace, *violation.cause_index, facts));
  }
  absl::StrAppend(&out, "; fault ", trace.empty() ? "none" : FirstFault(trace, at));
  return out;
}

}  // namespace stackcheck::sim
