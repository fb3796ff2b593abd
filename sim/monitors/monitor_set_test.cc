#include "sim/monitors/monitor_set.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/policies/registry.h"
#include "core/scenario.h"
#include "core/scenario_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/driver_api.h"
#include "sim/event_payloads.h"
#include "sim/monitors/bookkeeping_view.h"
#include "sim/simulator.h"
#include "sim/strategies/random_strategy.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;

// Feeds a whole trace the way the engine does and returns the first violation.
std::optional<Violation> Replay(Monitor& m, const std::vector<Event>& trace, const SimView& view) {
  m.Reset();
  BookkeepingView books(view);
  const absl::Span<const Event> all(trace);
  for (std::size_t n = 1; n <= all.size(); ++n) {
    if (auto v = books.Deliver(m, all.first(n))) return v;
  }
  return m.OnQuiescence(all, books, /*all_finished=*/true);
}

// The engine's rule for driver calls (Scheduler::RunCallMonitors): a call
// outside the monitor's CallFilter is not shown to it. `marked_only` holds
// on engine traces only (the engine marks every call a callback thread
// makes), so `engine_trace` false leaves it out.
bool Shown(const Monitor& m, const Event& e, bool engine_trace) {
  if (e.kind != EventKind::kDriverCall && e.kind != EventKind::kDriverCallBlock) return true;
  const CallFilter f = m.calls();
  const auto call = e.As<payload::Call>();
  // Random streams carry any word here, past the last DriverCall too.
  const auto api = static_cast<std::uint32_t>(call.call);
  if (api < 64 && ((f.apis >> api) & 1) == 0) return false;
  if (f.succeeded_only && e.kind == EventKind::kDriverCall && call.result != CuResult::kSuccess) {
    return false;
  }
  if (engine_trace && f.marked_only && (call.flags & kCallFromCallback) == 0) return false;
  return true;
}

// Replay, skipping the driver calls the engine would not show the monitor.
std::optional<Violation> ReplayFiltered(Monitor& m, const std::vector<Event>& trace,
                                        const SimView& view, bool engine_trace) {
  m.Reset();
  BookkeepingView books(view);
  const absl::Span<const Event> all(trace);
  for (std::size_t n = 1; n <= all.size(); ++n) {
    if (!Shown(m, all[n - 1], engine_trace)) {
      books.DeliverTo({}, all.first(n));  // the books still take it
      continue;
    }
    if (auto v = books.Deliver(m, all.first(n))) return v;
  }
  return m.OnQuiescence(all, books, /*all_finished=*/true);
}

std::string Show(const std::optional<Violation>& v) {
  return v.has_value() ? absl::StrCat(v->property, " @", v->event_index, ": ", v->message)
                       : std::string("none");
}

RegionSpec Region(RegionId id, std::uint32_t teams, bool aborts = false) {
  RegionSpec r;
  r.id = id;
  r.teams = teams;
  r.warps = 8;
  r.aborts = aborts;
  return r;
}

// Every monitor inside a set must reach the verdict it reaches alone, on
// real engine traces of every policy (with and without an abort, both free
// modes) -- the check that each monitor's event-kind mask is complete.
TEST(MonitorSetTest, SameVerdictsAsTheMonitorsAlone) {
  Scenario s;
  s.threads.resize(2);
  s.threads[0].ops = {HostOp::Run(Region(1, 8)), HostOp::Run(Region(2, 16))};
  s.threads[1].ops = {HostOp::Run(Region(3, 4)), HostOp::Run(Region(4, 32))};
  s.threads[0].ops.insert(s.threads[0].ops.begin() + 1, HostOp::DeviceAlloc(4 * kMiB, /*slot=*/0));

  int compared = 0, violating = 0, filtered_out = 0;
  for (const PolicyInfo& policy : AllPolicies()) {
    for (int variant = 0; variant < 4; ++variant) {
      Scenario scenario = s;
      scenario.threads[1].ops[0] = HostOp::Run(Region(3, 4, /*aborts=*/variant & 1));
      SimConfig config;
      config.modes.free_waits_for_streams = (variant & 2) == 0;
      Simulator sim(config);  // no monitors: every trace runs to its end
      RandomStrategy strategy(RandomStrategy::Options{/*seed=*/11, 40});
      while (strategy.NewExecution()) {
        const ExecutionResult& r = sim.Run(strategy, [&](Device& d, Host& h, RuntimeObserver& o) {
          RunScenario(scenario, d, h, o, policy);
        });
        for (absl::string_view name : MonitorNames()) {
          auto alone = MakeMonitor(name, MonitorParams{});
          auto set = MakeMonitorSet({name}, MonitorParams{});
          ASSERT_TRUE(alone.ok() && set.ok());
          const std::optional<Violation> a = Replay(**alone, r.trace, sim.view());
          const std::optional<Violation> b = Replay(**set, r.trace, sim.view());
          ASSERT_EQ(Show(a), Show(b)) << policy.name << " variant " << variant;
          const std::optional<Violation> c =
              ReplayFiltered(**alone, r.trace, sim.view(), /*engine_trace=*/true);
          ASSERT_EQ(Show(a), Show(c))
              << name << " with its call filter, " << policy.name << " variant " << variant;
          filtered_out +=
              static_cast<int>(std::count_if(r.trace.begin(), r.trace.end(), [&](const Event& e) {
                return !Shown(**alone, e, true);
              }));
          ++compared;
          violating += a.has_value();
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
  // The comparison means something only if monitors do fire on these traces.
  EXPECT_GT(violating, 50);
  // ...and if the call filters do leave calls out.
  EXPECT_GT(filtered_out, 1000);
}

class FixedNames : public SimView {
 public:
  bool sticky_error() const override { return false; }
  absl::string_view ActorName(ActorId) const override { return "T"; }
};

// Random streams over a tiny domain (few actors, kernels, mutexes, blocks),
// so every kind meets every other in every order: a kind a monitor reads but
// its mask omits shows up as a differing verdict.
std::vector<Event> RandomStream(std::mt19937_64& rng, int length) {
  const auto pick = [&](std::uint64_t n) { return rng() % n; };
  std::vector<Event> trace;
  for (int i = 0; i < length; ++i) {
    const auto actor = static_cast<ActorId>(pick(4));
    const auto kind = static_cast<EventKind>(pick(static_cast<int>(EventKind::kProbe) + 1));
    // Random words, whatever the kind's payload: every field of every kind
    // takes values from the same tiny domain.
    EventWords w;
    w.a = static_cast<std::uint32_t>(pick(3));
    w.b = pick(5) == 0 ? kNoActor : static_cast<std::uint32_t>(pick(4));
    w.c = static_cast<std::uint32_t>(pick(3));
    w.d = static_cast<std::uint32_t>(1 + pick(4));
    w.x = pick(4) * 0x1000 + (pick(4) == 0 ? 719 : 0);
    w.y = 0x400 << pick(3);
    if (kind == EventKind::kKernelEnd && pick(2) == 0) w.x = 0;
    trace.push_back(Event(i, actor, kind, w));
  }
  return trace;
}

TEST(MonitorSetTest, SameVerdictsOnRandomStreams) {
  std::mt19937_64 rng(1234);
  const FixedNames view;
  int violating = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::vector<Event> trace = RandomStream(rng, 40);
    for (absl::string_view name : MonitorNames()) {
      auto alone = MakeMonitor(name, MonitorParams{});
      auto set = MakeMonitorSet({name}, MonitorParams{});
      const std::optional<Violation> a = Replay(**alone, trace, view);
      const std::optional<Violation> b = Replay(**set, trace, view);
      ASSERT_EQ(Show(a), Show(b)) << name << " round " << round;
      const std::optional<Violation> c =
          ReplayFiltered(**alone, trace, view, /*engine_trace=*/false);
      ASSERT_EQ(Show(a), Show(c)) << name << " with its call filter, round " << round;
      violating += a.has_value();
    }
  }
  EXPECT_GT(violating, 1000);
}

TEST(MonitorSetTest, FirstViolationInTheGivenOrder) {
  // An event both monitors read; each would complain about it.
  const std::vector<Event> trace = {
      // Kernel 1, one warp of 1 KiB, stacks at 0: in no block at all.
      Event(0, kNoActor, EventKind::kKernelEnqueue,
            payload::KernelLaunch{{/*kernel=*/1, 0, 0, /*slots=*/1}, 0, /*per_warp=*/1024}),
      Event(0, kNoActor, EventKind::kKernelStart, payload::Kernel{/*kernel=*/1}),
  };
  class Names : public SimView {
    bool sticky_error() const override { return false; }
    absl::string_view ActorName(ActorId) const override { return "T"; }
  } view;
  auto set = MakeMonitorSet({"no-stack-overlap", "no-use-after-free"}, {});
  ASSERT_TRUE(set.ok());
  EXPECT_EQ((*set)->property(), "monitor-set");
  const std::optional<Violation> v = Replay(**set, trace, view);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "no-use-after-free");
  EXPECT_EQ(v->event_index, 1u);
}

TEST(MonitorSetTest, UnknownNameIsAnError) {
  auto set = MakeMonitorSet({"no-leak", "no-such-property"}, {});
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(std::string(set.status().message()), HasSubstr("\"no-such-property\""));
}

TEST(MonitorSetTest, EveryMonitorDeclaresWhatItReads) {
  for (absl::string_view name : MonitorNames()) {
    auto m = MakeMonitor(name, MonitorParams{});
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_NE((*m)->reads(), kAllEventKinds) << name;
    // Reading nothing as events are logged is blindness, except for a
    // monitor that reads the whole trace at the end (data_race_test).
    if (name != "data-race") {
      EXPECT_NE((*m)->reads(), 0u) << name;
    }
  }
  EXPECT_EQ((*MakeMonitor("bounded-cache", {}))->reads(), KindBit(EventKind::kCacheHeld));
}

}  // namespace
}  // namespace stackcheck::sim
