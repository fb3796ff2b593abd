#include "sim/monitors/coverage_probes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/cu_result.h"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"
#include "sim/monitors/violation_util.h"

namespace stackcheck::sim {
namespace {

std::size_t IndexOf(absl::string_view name) {
  for (std::size_t i = 0; i < std::size(kAllProbes); ++i) {
    if (kAllProbes[i] == name) return i;
  }
  return std::size(kAllProbes);
}

const std::size_t kCallbackAfterRealloc = IndexOf(kProbeCallbackAfterRealloc);
const std::size_t kAbortWhileOther = IndexOf(kProbeAbortWhileOtherRegionInFlight);
const std::size_t kFreeWaitsOnCallback = IndexOf(kProbeFreeWaitsOnRunningCallback);

}  // namespace

void CoverageProbes::ResetScratch() {
  hit_.fill(false);
  other_hit_.clear();
  ledger_.Reset();
  kernels_.Reset();
  std::fill(last_block_of_stream_.begin(), last_block_of_stream_.end(), kNoBlock);
  std::fill(region_of_actor_.begin(), region_of_actor_.end(), 0);
  callbacks_running_ = 0;
  poisoned_ = false;
}

void CoverageProbes::Observe(absl::Span<const Event> events, ProbeNamer probe_name) {
  ResetScratch();
  for (std::size_t index = 0; index < events.size(); ++index) {
    ObserveEvent(events[index], index, probe_name);
  }
  ++executions_;
  for (std::size_t i = 0; i < kProbeCount; ++i) counts_[i] += hit_[i];
  for (const std::string& name : other_hit_) ++other_counts_[name];
}

void CoverageProbes::ObserveEvent(const Event& e, std::size_t index, ProbeNamer probe_name) {
  switch (e.kind) {
    case EventKind::kAlloc:
    case EventKind::kFree:
    case EventKind::kAsyncFreeComplete:
    case EventKind::kCtxDestroy:
      ledger_.Apply(e, index);
      break;
    case EventKind::kRegionBegin:
    case EventKind::kRegionEnd:
      if (e.actor >= kMaxIndexedId) break;
      if (e.actor >= region_of_actor_.size()) {
        region_of_actor_.resize(e.actor + 1, 0);
      }
      region_of_actor_[e.actor] =
          e.kind == EventKind::kRegionBegin ? e.As<payload::Region>().region : 0;
      break;
    case EventKind::kKernelEnqueue: {
      KernelInFlight& k = kernels_.Enqueue(e, index);
      const LiveBlock* b = ledger_.Containing(k.stacks);
      k.block = b == nullptr ? kNoBlock : b->serial;
      break;
    }
    case EventKind::kKernelEnd:
    case EventKind::kKernelDropped:
      KernelEnded(e);
      break;
    case EventKind::kStickyError:
      poisoned_ = true;
      break;
    case EventKind::kCallbackStart:
      ++callbacks_running_;
      CallbackStarted(e);
      break;
    case EventKind::kHostFnStart:
      ++callbacks_running_;
      break;
    case EventKind::kCallbackEnd:
    case EventKind::kHostFnEnd:
      if (callbacks_running_ > 0) --callbacks_running_;
      break;
    case EventKind::kDriverCallBlock:
      if (e.As<payload::Call>().call == DriverCall::kMemFree && callbacks_running_ > 0) {
        Hit(kFreeWaitsOnCallback);
      }
      break;
    case EventKind::kProbe:
      RuntimeProbe(e, probe_name(e.As<payload::Probe>().probe));
      break;
    default:
      break;
  }
}

bool CoverageProbes::OtherRegionInFlight(const KernelInFlight& k) const {
  bool other = false;
  for (const KernelInFlight& o : kernels_.in_flight()) {
    other |= o.id != k.id && o.region != k.region;
  }
  for (std::size_t a = 0; a < region_of_actor_.size(); ++a) {
    other |= region_of_actor_[a] != 0 && region_of_actor_[a] != k.region;
  }
  return other;
}

void CoverageProbes::KernelEnded(const Event& e) {
  const std::uint32_t kernel = e.As<payload::Kernel>().kernel;
  KernelInFlight* k = kernels_.Find(kernel);
  if (k == nullptr) return;
  // A trap ends its kernel with an error; a dropped kernel never ran.
  const bool aborted =
      e.kind == EventKind::kKernelEnd && e.As<payload::KernelEnd>().result != CuResult::kSuccess;
  if (aborted && !poisoned_ && OtherRegionInFlight(*k)) {
    Hit(kAbortWhileOther);
  }
  if (k->stream < kMaxIndexedId) {
    if (k->stream >= last_block_of_stream_.size()) {
      last_block_of_stream_.resize(k->stream + 1, kNoBlock);
    }
    last_block_of_stream_[k->stream] = k->block;
  }
  kernels_.Remove(kernel);
}

void CoverageProbes::CallbackStarted(const Event& e) {
  const std::uint32_t stream = e.As<payload::StreamWork>().stream;
  const BlockSerial block =
      stream < last_block_of_stream_.size() ? last_block_of_stream_[stream] : kNoBlock;
  if (block == kNoBlock || ledger_.IsLive(block)) return;
  const FreedBlock* f = ledger_.FindFreed(block);
  if (f != nullptr && ledger_.allocs() > f->allocs_before) {
    Hit(kCallbackAfterRealloc);
  }
}

void CoverageProbes::RuntimeProbe(const Event& e, absl::string_view name) {
  const std::size_t i = IndexOf(name);
  if (i < kProbeCount) {
    Hit(i);
  } else if (std::find(other_hit_.begin(), other_hit_.end(), name) == other_hit_.end()) {
    other_hit_.emplace_back(name.empty() ? absl::StrCat("#", e.As<payload::Probe>().probe)
                                         : std::string(name));
  }
}

void CoverageProbes::Merge(const CoverageProbes& other) {
  executions_ += other.executions_;
  for (std::size_t i = 0; i < kProbeCount; ++i) counts_[i] += other.counts_[i];
  for (const auto& [name, count] : other.other_counts_) {
    other_counts_[name] += count;
  }
}

std::uint64_t CoverageProbes::hits(absl::string_view probe) const {
  const std::size_t i = IndexOf(probe);
  if (i < kProbeCount) return counts_[i];
  auto it = other_counts_.find(probe);
  return it == other_counts_.end() ? 0 : it->second;
}

std::string CoverageProbes::Report() const {
  std::string out = absl::StrCat("coverage probes over ", executions_, " executions:\n");
  const auto line = [&](absl::string_view name, std::uint64_t count) {
    const double pct = executions_ == 0 ? 0.0 : 100.0 * count / static_cast<double>(executions_);
    absl::StrAppendFormat(&out, "  %-36s %10d  (%.2f%%)\n", name, count, pct);
  };
  for (std::size_t i = 0; i < kProbeCount; ++i) line(kAllProbes[i], counts_[i]);
  for (const auto& [name, count] : other_counts_) line(name, count);
  for (std::size_t i = 0; i < kProbeCount; ++i) {
    if (counts_[i] == 0) absl::StrAppend(&out, "probe ", kAllProbes[i], " never hit\n");
  }
  return out;
}

}  // namespace stackcheck::sim
