// Per-event cost of each monitor, the coverage counter and the digest.
//
//   ./bazelw run -c opt //sim/monitors:monitors_benchmark
//
// The engine aims at 10M+ events/s with every monitor enabled, so the whole
// set must cost well under 100 ns per event. The stream is a synthetic but
// realistic execution: three host threads running V2-shaped regions (lock,
// grow-or-reuse the block, launch, synchronise, unlock) with device_allocs,
// stream callbacks and a closing teardown, about 2,000 events; each iteration
// is one execution (Reset, then every event in order, then quiescence).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/probes.h"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"
#include "sim/monitors/bookkeeping_view.h"
#include "sim/monitors/coverage_probes.h"
#include "sim/monitors/monitor_set.h"
#include "sim/monitors/monitors.h"
#include "sim/trace/digest.h"

namespace stackcheck::sim {
namespace {

class NamesOnly : public SimView {
 public:
  bool sticky_error() const override { return false; }
  absl::string_view ActorName(ActorId) const override { return "T"; }
};

class StreamBuilder {
 public:
  template <typename Payload>
  void Add(ActorId actor, EventKind kind, const Payload& payload) {
    events_.push_back(Event(now_ += 50, actor, kind, payload));
  }
  void Add(ActorId actor, EventKind kind) {
    events_.push_back(Event(now_ += 50, actor, kind, payload::None{}));
  }
  void Call(ActorId actor, DriverCall api) {
    Add(actor, EventKind::kDriverCall, payload::Call{api});
  }
  std::vector<Event> Take() { return std::move(events_); }

 private:
  std::uint64_t now_ = 0;
  std::vector<Event> events_;
};

constexpr ActorId kCallbackThread = 4;
constexpr ActorId kGpu = 5;
constexpr std::uint64_t kPerWarp = 128 * 1024;

std::vector<Event> SyntheticExecution() {
  StreamBuilder s;
  s.Add(0, EventKind::kMutexCreate, payload::Mutex{0});
  std::uint64_t block = 0, block_bytes = 0, next_ptr = 0x100000000;
  std::uint32_t kernel = 0, region = 0, callback = 0;
  std::vector<std::uint64_t> user_blocks;
  for (int round = 0; round < 60; ++round) {
    for (ActorId t = 1; t <= 3; ++t) {
      const std::uint32_t teams = 8u << ((round + t) % 3);
      const std::uint64_t need = kPerWarp * teams * 8;
      s.Add(t, EventKind::kRegionBegin, payload::Region{++region});
      s.Add(t, EventKind::kMutexLock, payload::Mutex{0});
      if (need > block_bytes) {
        if (block != 0) {
          s.Call(t, DriverCall::kCtxSynchronize);
          s.Add(t, EventKind::kFree, payload::Block{block, block_bytes});
          s.Call(t, DriverCall::kMemFree);
        }
        block = next_ptr;
        block_bytes = need;
        next_ptr += need;
        s.Add(t, EventKind::kAlloc, payload::Block{block, need});
        s.Call(t, DriverCall::kMemAlloc);
      }
      s.Add(t, EventKind::kKernelEnqueue,
            payload::KernelLaunch{{++kernel, 0, region, teams * 8}, block, kPerWarp});
      s.Call(t, DriverCall::kLaunchKernel);
      s.Add(t, EventKind::kDriverCallBlock, payload::Call{DriverCall::kCtxSynchronize});
      s.Add(kGpu, EventKind::kKernelStart, payload::Kernel{kernel});
      s.Add(kGpu, EventKind::kKernelEnd, payload::Kernel{kernel});
      if (round % 4 == 0) {
        s.Add(kCallbackThread, EventKind::kCallbackStart, payload::StreamWork{0, ++callback});
        s.Add(kCallbackThread, EventKind::kCallbackEnd, payload::StreamWork{0, callback});
      }
      s.Call(t, DriverCall::kCtxSynchronize);
      s.Add(t, EventKind::kMutexUnlock, payload::MutexHeld{0, t});
      s.Add(t, EventKind::kRegionEnd, payload::Region{region});
      // device_alloc: soft-limit check under the lock, then the allocation.
      s.Add(t, EventKind::kMutexLock, payload::Mutex{0});
      s.Add(t, EventKind::kMutexUnlock, payload::MutexHeld{0, t});
      const std::uint64_t user = next_ptr;
      next_ptr += 1 << 20;
      s.Add(t, EventKind::kAlloc, payload::Block{user, 1 << 20});
      s.Call(t, DriverCall::kMemAlloc);
      s.Add(t, EventKind::kCacheHeld, payload::CacheHeld{block_bytes});
      if (round % 8 == 0) s.Add(t, EventKind::kProbe, payload::Probe{0});
      user_blocks.push_back(user);
      if (user_blocks.size() > 4) {
        s.Add(t, EventKind::kFree, payload::Block{user_blocks.front(), 1 << 20});
        s.Call(t, DriverCall::kMemFree);
        user_blocks.erase(user_blocks.begin());
      }
    }
  }
  s.Add(0, EventKind::kMutexDestroy, payload::MutexHeld{0, kNoActor});
  s.Add(0, EventKind::kFree, payload::Block{block, block_bytes});
  s.Add(0, EventKind::kCtxDestroy);
  return s.Take();
}

void RunMonitors(benchmark::State& state, std::vector<std::unique_ptr<Monitor>> monitors) {
  const std::vector<Event> events = SyntheticExecution();
  const absl::Span<const Event> all(events);
  const NamesOnly names;
  BookkeepingView view(names);
  std::vector<Monitor*> each;
  for (auto& m : monitors) each.push_back(m.get());
  std::uint64_t violations = 0;
  for (auto _ : state) {
    for (auto& m : monitors) m->Reset();
    view.Reset();
    for (std::size_t n = 1; n <= all.size(); ++n) {
      violations += view.DeliverTo(each, all.first(n)).has_value();
    }
    for (auto& m : monitors) {
      violations += m->OnQuiescence(all, view, true).has_value();
    }
  }
  if (violations != 0) state.SkipWithError("the synthetic execution violated a property");
  state.SetItemsProcessed(state.iterations() * events.size());
  state.counters["events/execution"] = static_cast<double>(events.size());
}

void BM_Monitor(benchmark::State& state) {
  const absl::string_view name = MonitorNames()[state.range(0)];
  state.SetLabel(std::string(name));
  std::vector<std::unique_ptr<Monitor>> one;
  one.push_back(*MakeMonitor(name, MonitorParams{}));
  RunMonitors(state, std::move(one));
}
BENCHMARK(BM_Monitor)->DenseRange(0, 7);

void BM_AllMonitors(benchmark::State& state) {
  RunMonitors(state, MakeAllMonitors(MonitorParams{}));
}
BENCHMARK(BM_AllMonitors);

void BM_MonitorSet(benchmark::State& state) {
  std::vector<std::unique_ptr<Monitor>> set;
  set.push_back(*MakeMonitorSet(MonitorNames(), MonitorParams{}));
  RunMonitors(state, std::move(set));
}
BENCHMARK(BM_MonitorSet);

void BM_CoverageProbes(benchmark::State& state) {
  const std::vector<Event> events = SyntheticExecution();
  CoverageProbes coverage;
  for (auto _ : state) {
    coverage.Observe(events, [](std::uint32_t) { return absl::string_view(kProbeSoftLimitFree); });
  }
  benchmark::DoNotOptimize(coverage.hits(kProbeSoftLimitFree));
  state.SetItemsProcessed(state.iterations() * events.size());
}
BENCHMARK(BM_CoverageProbes);

void BM_Digest(benchmark::State& state) {
  const std::vector<Event> events = SyntheticExecution();
  for (auto _ : state) benchmark::DoNotOptimize(Digest(events));
  state.SetItemsProcessed(state.iterations() * events.size());
}
BENCHMARK(BM_Digest);

}  // namespace
}  // namespace stackcheck::sim

BENCHMARK_MAIN();
