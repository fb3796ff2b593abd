#include "properties/generators.h"

#include <utility>

#include "absl/strings/str_join.h"

namespace stackcheck::properties {
namespace {

rc::Gen<bool> Rarely(int one_in) {
  return rc::gen::weightedElement<bool>({{one_in - 1, false}, {1, true}});
}
rc::Gen<bool> Mostly(int one_in) {
  return rc::gen::weightedElement<bool>({{one_in - 1, true}, {1, false}});
}

// RapidCheck scales integer ranges by the size parameter, and a container's
// length is drawn from it too. Vectors here take their length bound from the
// size (so shrinking drops any element, not just the last) and hand their
// elements the full nominal size so that values are not squeezed to the minimum.
constexpr int kFullSize = 100;

template <typename T>
rc::Gen<std::vector<T>> VectorOf(int max_length, rc::Gen<T> element, bool non_empty) {
  rc::Gen<std::vector<T>> v =
      rc::gen::container<std::vector<T>>(rc::gen::resize(kFullSize, std::move(element)));
  if (non_empty) v = rc::gen::nonEmpty(std::move(v));
  // nonEmpty retries with a larger size; keep the bound anyway.
  return rc::gen::map(rc::gen::resize(max_length, std::move(v)), [max_length](std::vector<T> x) {
    if (x.size() > static_cast<size_t>(max_length)) x.resize(max_length);
    return x;
  });
}

}  // namespace

rc::Gen<RegionSpec> GenRegion() {
  return rc::gen::apply(
      [](std::uint32_t teams, std::uint32_t warps, std::uint64_t duration, bool aborts,
         std::uint32_t mapped) {
        RegionSpec r;
        r.teams = teams;
        r.warps = warps;
        r.stack_size_per_warp = kUnit;
        r.duration_ns = duration;
        r.aborts = aborts;
        r.mapped_vars = mapped;
        return r;
      },
      rc::gen::inRange<std::uint32_t>(1, 5), rc::gen::inRange<std::uint32_t>(1, 5),
      rc::gen::element<std::uint64_t>(1000, 5000, 20000, 100000), Rarely(8),
      // Mapped variables shrink away: most regions of a counterexample map
      // nothing unless the mapping is what breaks.
      rc::gen::weightedOneOf<std::uint32_t>(
          {{1, rc::gen::just<std::uint32_t>(0)}, {1, rc::gen::inRange<std::uint32_t>(1, 3)}}));
}

rc::Gen<HostOp> GenHostOp() {
  rc::Gen<HostOp> run = rc::gen::map(GenRegion(), [](RegionSpec r) {
    HostOp op;
    op.kind = HostOp::Kind::kRun;
    op.region = r;
    return op;
  });
  // A region using one of the slots allocations go to (is_device_ptr).
  rc::Gen<HostOp> run_ptr =
      rc::gen::apply([](RegionSpec r, std::uint32_t slot) { return HostOp::RunDevicePtr(r, slot); },
                     GenRegion(), rc::gen::inRange<std::uint32_t>(0, 2));
  rc::Gen<HostOp> alloc = rc::gen::apply(
      [](std::uint32_t slot, std::uint64_t units) {
        HostOp op;
        op.kind = HostOp::Kind::kDeviceAlloc;
        op.slot = slot;
        op.bytes = units * kUnit;
        return op;
      },
      rc::gen::inRange<std::uint32_t>(0, 2), rc::gen::inRange<std::uint64_t>(1, 9));
  rc::Gen<HostOp> free =
      rc::gen::map(rc::gen::inRange<std::uint32_t>(0, 2), [](std::uint32_t slot) {
        HostOp op;
        op.kind = HostOp::Kind::kDeviceFree;
        op.slot = slot;
        return op;
      });
  rc::Gen<HostOp> enter =
      rc::gen::map(rc::gen::inRange<std::uint32_t>(2, 4),
                   [](std::uint32_t slot) { return HostOp::EnterData(kMappedVarBytes, slot); });
  rc::Gen<HostOp> exit = rc::gen::map(rc::gen::inRange<std::uint32_t>(2, 4),
                                      [](std::uint32_t slot) { return HostOp::ExitData(slot); });
  rc::Gen<HostOp> update = rc::gen::map(rc::gen::inRange<std::uint32_t>(2, 4),
                                        [](std::uint32_t slot) { return HostOp::Update(slot); });
  // weightedOneOf shrinks towards its first alternative: a plain run.
  return rc::gen::weightedOneOf<HostOp>(
      {{6, run}, {2, alloc}, {1, free}, {1, enter}, {1, exit}, {1, update}, {2, run_ptr}});
}

rc::Gen<FaultPlan> GenFaultPlan() {
  return rc::gen::apply(
      [](std::uint32_t fail_at, std::uint32_t launch_fail_at, bool ctors, bool dtors) {
        FaultPlan f;
        f.alloc_failure_at_call = fail_at;
        f.launch_failure_at_call = launch_fail_at;
        f.device_constructors = ctors;
        f.device_destructors = dtors;
        return f;
      },
      rc::gen::weightedOneOf<std::uint32_t>(
          {{3, rc::gen::just<std::uint32_t>(0)}, {1, rc::gen::inRange<std::uint32_t>(1, 7)}}),
      rc::gen::weightedOneOf<std::uint32_t>(
          {{5, rc::gen::just<std::uint32_t>(0)}, {1, rc::gen::inRange<std::uint32_t>(1, 5)}}),
      Rarely(3), Rarely(3));
}

void NumberRegions(Scenario& s) {
  RegionId next = 1;
  for (ThreadProgram& t : s.threads) {
    for (HostOp& op : t.ops) {
      if (op.HasRegion()) op.region.id = next++;
    }
  }
}

rc::Gen<Scenario> GenScenario(const GenOptions& options) {
  // Containers sized by resize() shrink by dropping any element, not just the
  // last, which is what lets a counterexample lose the regions it does not need.
  rc::Gen<ThreadProgram> thread =
      rc::gen::map(VectorOf(options.max_ops_per_thread, GenHostOp(), /*non_empty=*/true),
                   [](std::vector<HostOp> ops) {
                     ThreadProgram t;
                     t.ops = std::move(ops);
                     return t;
                   });
  rc::Gen<std::vector<ThreadProgram>> threads =
      VectorOf(options.max_threads, thread, /*non_empty=*/true);
  return rc::gen::apply(
      [](std::vector<ThreadProgram> threads, std::uint64_t capacity_units,
         std::uint64_t soft_limit_units, FaultPlan faults, bool close) {
        Scenario s;
        s.threads = std::move(threads);
        // Every single block (at most 16 units) fits; blocks of several threads,
        // user allocations and a cached block together may not.
        s.device_capacity = capacity_units * kUnit;
        s.soft_limit = soft_limit_units * kUnit;
        s.faults = faults;
        s.close_at_end = close;
        NumberRegions(s);
        return s;
      },
      threads, rc::gen::inRange<std::uint64_t>(16, 49),
      // Always close at the end: with close_at_end = false, RunScenario returns
      // and destroys the runtime while a thread that hit a fatal error may still
      // be running the exit handlers (a testbed bug, reported; replay files may
      // still say close_at_end=0).
      rc::gen::inRange<std::uint64_t>(1, 13), GenFaultPlan(), rc::gen::just(true));
}

rc::Gen<sim::SimModes> GenSimModes(const GenOptions& options) {
  if (!options.vary_modes) return rc::gen::just(CaseModes());
  return rc::gen::apply(
      [](bool free_waits, bool serial) {
        sim::SimModes m = CaseModes();
        m.free_waits_for_streams = free_waits;
        m.serial_callback_thread = serial;
        return m;
      },
      Mostly(4), Mostly(4));
}

rc::Gen<std::vector<std::uint64_t>> GenSchedule(const GenOptions& options) {
  // Mostly 0 (the sequence strategy's "no preemption"), so random schedules
  // resemble real ones and shrinking drives choices towards 0.
  rc::Gen<std::uint64_t> choice = rc::gen::weightedOneOf<std::uint64_t>(
      {{3, rc::gen::just<std::uint64_t>(0)}, {1, rc::gen::inRange<std::uint64_t>(1, 8)}});
  return VectorOf(options.max_schedule, choice, /*non_empty=*/false);
}

rc::Gen<Case> GenCase(const GenOptions& options) {
  return rc::gen::apply(
      [](Scenario s, sim::SimModes m, std::vector<std::uint64_t> schedule) {
        return Case{std::move(s), m, std::move(schedule)};
      },
      GenScenario(options), GenSimModes(options),
      options.draw_schedule ? GenSchedule(options) : rc::gen::just(std::vector<std::uint64_t>{}));
}

Case CaseForSeed(const rc::Gen<Case>& gen, std::uint64_t seed, int size) {
  return gen(rc::Random(seed), size).value();
}

void showValue(const Case& c, std::ostream& os) {
  os << DescribeScenario(c.scenario)
     << "  modes: free_waits_for_streams=" << c.modes.free_waits_for_streams
     << " serial_callback_thread=" << c.modes.serial_callback_thread << "\n  schedule: ["
     << absl::StrJoin(c.schedule, " ") << "]";
}

}  // namespace stackcheck::properties
