// How events reach the monitors, and what a violation does to the execution:
// each monitor sees only the event kinds it reads, and a violation the pass
// accepts (a known bug) lets the execution go on.

#include <new>
#include <utility>

#include "absl/base/optimization.h"
#include "core/cu_result.h"
#include "sim/event_payloads.h"
#include "sim/fingerprint.h"
#include "sim/scheduler.h"

namespace stackcheck::sim {

void Scheduler::set_monitors(std::vector<std::unique_ptr<Monitor>> monitors) {
  monitors_ = std::move(monitors);
  std::vector<Monitor*> members;
  for (const auto& m : monitors_) m->AppendMembers(&members);
  monitor_reads_ = 0;
  books_reads_ = 0;
  for (const Monitor* m : members) {
    if (m->reads_device_books()) books_reads_ = DeviceBooks::kReads;
  }
  monitor_reads_ |= books_reads_;
  by_kind_.clear();
  call_filters_.clear();
  for (int k = 0; k < 64; ++k) {
    first_of_kind_[k] = static_cast<std::uint32_t>(by_kind_.size());
    for (Monitor* m : members) {
      if (((m->reads() >> k) & 1) == 0) continue;
      by_kind_.push_back(m);
      call_filters_.push_back(m->calls());
      monitor_reads_ |= EventKindMask{1} << k;
    }
  }
  first_of_kind_[64] = static_cast<std::uint32_t>(by_kind_.size());
  const EventKind call_kinds[2] = {EventKind::kDriverCall, EventKind::kDriverCallBlock};
  for (int c = 0; c < 2; ++c) {
    const auto k = static_cast<std::size_t>(call_kinds[c]);
    unmarked_call_apis_[c] = 0;
    for (std::uint32_t i = first_of_kind_[k]; i < first_of_kind_[k + 1]; ++i) {
      if (!call_filters_[i].marked_only) unmarked_call_apis_[c] |= call_filters_[i].apis;
    }
  }
}

void Scheduler::RunMonitors(EventKind kind) {
  const auto k = static_cast<std::size_t>(kind);
  if (kind == EventKind::kDriverCall || kind == EventKind::kDriverCallBlock) {
    RunCallMonitors(first_of_kind_[k], first_of_kind_[k + 1]);
    return;
  }
  const bool booked = (books_reads_ & KindBit(kind)) != 0;
  if (booked) books_.ApplyBefore(trace_.back(), trace_.size() - 1);
  Monitor* const* m = by_kind_.data() + first_of_kind_[k];
  Monitor* const* const last = by_kind_.data() + first_of_kind_[k + 1];
  const absl::Span<const Event> events(trace_);
  // Each verdict is constructed straight into verdict_ (a local optional
  // would give this function, called at every event, a stack guard and a
  // large frame).
  auto* const verdict = reinterpret_cast<std::optional<Violation>*>(&verdict_);
  for (; m != last; ++m) {
    new (verdict) std::optional<Violation>((*m)->OnEvent(events, *this));
    if (ABSL_PREDICT_FALSE(verdict->has_value())) {
      if (StopAtViolation(verdict)) return;
      continue;
    }
    verdict->~optional();  // disengaged: nothing to free
  }
  if (booked) books_.ApplyAfter(trace_.back(), trace_.size() - 1);
}

void Scheduler::RunCallMonitors(std::size_t first, std::size_t last) {
  const Event& e = trace_.back();
  const auto call = e.As<payload::Call>();
  const auto api = static_cast<std::uint32_t>(call.call);
  const bool known_api = api < 64;
  const std::uint64_t api_bit = known_api ? std::uint64_t{1} << api : 0;
  const bool succeeded = e.kind != EventKind::kDriverCall || call.result == CuResult::kSuccess;
  const bool marked = (call.flags & kCallFromCallback) != 0;
  const std::uint64_t unmarked_apis = unmarked_call_apis_[e.kind == EventKind::kDriverCall ? 0 : 1];
  if (known_api && !marked && (unmarked_apis & api_bit) == 0) return;
  const absl::Span<const Event> events(trace_);
  auto* const verdict = reinterpret_cast<std::optional<Violation>*>(&verdict_);
  for (std::size_t i = first; i < last; ++i) {
    const CallFilter& f = call_filters_[i];
    if ((known_api && (f.apis & api_bit) == 0) || (f.succeeded_only && !succeeded) ||
        (f.marked_only && !marked)) {
      continue;
    }
    new (verdict) std::optional<Violation>(by_kind_[i]->OnEvent(events, *this));
    if (ABSL_PREDICT_FALSE(verdict->has_value())) {
      if (StopAtViolation(verdict)) return;
      continue;
    }
    verdict->~optional();
  }
}

bool Scheduler::StopAtViolation(std::optional<Violation>* verdict) {
  (*verdict)->event_index = trace_.size() - 1;
  const bool stops = !Passes(**verdict);
  if (stops) {
    violation_ = std::move(*verdict);
    stopped_ = true;
  }
  verdict->~optional();
  return stops;
}

// At most this many violations are passed in one execution; the next one
// stops it, so a monitor that reports at every event cannot make an
// execution quadratic.
constexpr std::size_t kMaxPassed = 64;

bool Scheduler::Passes(Violation& v) {
  FingerprintFacts facts;
  facts.actor_kind = [this](ActorId actor) -> absl::string_view {
    if (actor >= actor_count_) return "unknown actor";
    switch (actors_[actor].kind) {
      case ActorKind::kHostThread:
        return "host thread";
      case ActorKind::kCallbackThread:
      case ActorKind::kCallbackWorker:
        return "callback thread";
      case ActorKind::kGpuStream:
        return "gpu stream";
    }
    return "unknown actor";
  };
  facts.mutex_name = [this](std::uint32_t mutex) { return MutexName(mutex); };
  facts.exit_handlers_actor = handlers_actor_;
  facts.exit_handlers_from = handlers_from_;
  v.fingerprint = Fingerprint(v, trace_, facts);
  if (!pass_ || passes_ >= kMaxPassed || !pass_(v)) return false;
  ++passes_;
  for (const Violation& p : passed_) {
    if (p.fingerprint == v.fingerprint) return true;
  }
  passed_.push_back(v);
  return true;
}

void Scheduler::ReportViolation(std::string property, std::string message,
                                std::vector<WaitLink> waits, bool cyclic) {
  if (violation_.has_value()) return;
  stopped_ = true;
  Violation v;
  v.property = std::move(property);
  v.message = std::move(message);
  v.event_index = trace_.empty() ? 0 : trace_.size() - 1;
  v.waits = std::move(waits);
  v.waits_form_cycle = cyclic;
  // An engine violation ends the execution even when passed: nothing can run.
  if (!Passes(v)) violation_ = std::move(v);
}

void Scheduler::QuiescenceMonitors(bool all_finished) {
  for (auto& monitor : monitors_) {
    if (violation_.has_value()) return;
    std::optional<Violation> v = monitor->OnQuiescence(trace_, *this, all_finished);
    if (v.has_value()) {
      v->event_index = trace_.empty() ? 0 : trace_.size() - 1;
      v->at_end = true;
      if (!Passes(*v)) violation_ = std::move(v);
    }
  }
}

}  // namespace stackcheck::sim
