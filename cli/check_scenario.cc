#include "cli/check_scenario.h"

#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/flag_parser.h"
#include "core/scenario.h"
#include "properties/explore.h"
#include "properties/known_bugs.h"
#include "properties/replay_file.h"
#include "properties/scenarios.h"

ABSL_FLAG(std::string, scenario, "regions",
          "check: regions, or a scenario of the catalogue (standard, peer, standard+exit, "
          "peer+exit, ...)");
ABSL_FLAG(std::string, scenario_file, "",
          "check: a scenario file (the case lines of a replay file: modes, device, faults, "
          "thread and run/alloc/free/enter/exit/update lines; fields optional)");
ABSL_FLAG(int, threads, 2, "check: host threads of the regions scenario (1-4)");
ABSL_FLAG(int, regions, 3, "check: regions per thread of the regions scenario (1-8)");
ABSL_FLAG(int, warps, 1, "check: warps of every region of the regions scenario (1-4)");
ABSL_FLAG(bool, user_alloc, false,
          "check: each thread of the regions scenario allocates a block (omp_target_alloc) "
          "before its regions and frees it after them");
ABSL_FLAG(bool, is_device_ptr, false,
          "check: with --user_alloc, every region of the regions scenario uses the thread's "
          "allocation (is_device_ptr)");
ABSL_FLAG(bool, enter_data, false,
          "check: each thread of the regions scenario maps a variable (target enter data) "
          "before its regions, updates it after the first and unmaps it after the last");
ABSL_FLAG(bool, abort, false, "check: thread 0's last region aborts");
ABSL_FLAG(int, mapped_vars, 0,
          "check: variables every region maps (0-4): allocations and copies under "
          "the device lock before and after each region");
ABSL_FLAG(int, oom_at, 0, "check: the k-th cuMemAlloc fails with out of memory (0 = none)");
ABSL_FLAG(int, reject_launch_at, 0,
          "check: the k-th cuLaunchKernel is rejected (launch out of resources; 0 = none)");
ABSL_FLAG(bool, device_constructors, false,
          "check: the image has device constructors (kernels at load)");
ABSL_FLAG(bool, device_destructors, false,
          "check: the image has device destructors (kernels at close)");
ABSL_FLAG(std::uint64_t, soft_limit, 0,
          "check: the runtime's soft limit on the cached block, bytes (0 = the scenario's)");
ABSL_FLAG(std::uint64_t, capacity, 0, "check: device memory, bytes (0 = the scenario's)");
ABSL_FLAG(bool, shipped_target, false,
          "check: libgomp's target.c as GCC 12.2 ships it: a region, omp_target_alloc and "
          "omp_target_free that meet the device finalized by another thread's exit call the "
          "plugin, which dies of SIGSEGV after a close that succeeded (property no-crash); "
          "off: they look at the device's state first, as gcc/patches/0003 makes them");
ABSL_FLAG(bool, free_no_wait, false,
          "check: cuMemFree frees at once instead of waiting for idle streams (SEM-11); "
          "with --enumerate, given either way it fixes the mode, else both are explored");
ABSL_FLAG(bool, concurrent_callbacks, false,
          "check: each stream callback runs on its own thread (SEM-07); with --enumerate, "
          "given either way it fixes the mode, else both are explored");

namespace stackcheck::cli {
namespace {

constexpr int kMaxFaultCall = 1000;

// A flag in [lo, hi], or an error naming it.
absl::Status InRange(const char* flag, int value, int lo, int hi) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrFormat("--%s must be %d..%d, not %d", flag, lo, hi, value));
}

// Slots the regions scenario's extra operations use (per thread).
constexpr std::uint32_t kUserAllocSlot = 0;
constexpr std::uint32_t kEnterDataSlot = 1;

// The regions scenario, its operations around the regions included.
absl::StatusOr<Scenario> Regions() {
  const int threads = absl::GetFlag(FLAGS_threads);
  const int regions = absl::GetFlag(FLAGS_regions);
  const int warps = absl::GetFlag(FLAGS_warps);
  if (absl::Status s = InRange("threads", threads, 1, 4); !s.ok()) return s;
  if (absl::Status s = InRange("regions", regions, 1, 8); !s.ok()) return s;
  if (absl::Status s = InRange("warps", warps, 1, 4); !s.ok()) return s;
  if (absl::GetFlag(FLAGS_is_device_ptr) && !absl::GetFlag(FLAGS_user_alloc)) {
    return absl::InvalidArgumentError(
        "--is_device_ptr needs --user_alloc: a region uses the thread's allocation");
  }
  Scenario s = properties::RegionsScenario(threads, regions, absl::GetFlag(FLAGS_abort),
                                           absl::GetFlag(FLAGS_mapped_vars));
  for (ThreadProgram& t : s.threads) {
    for (HostOp& op : t.ops) op.region.warps = static_cast<std::uint32_t>(warps);
    if (absl::GetFlag(FLAGS_enter_data)) {
      t.ops.insert(t.ops.begin() + 1, HostOp::Update(kEnterDataSlot));
      t.ops.insert(t.ops.begin(), HostOp::EnterData(kMappedVarBytes, kEnterDataSlot));
      t.ops.push_back(HostOp::ExitData(kEnterDataSlot));
    }
    if (absl::GetFlag(FLAGS_user_alloc)) {
      if (absl::GetFlag(FLAGS_is_device_ptr)) {
        for (HostOp& op : t.ops) {
          if (op.kind == HostOp::Kind::kRun) op = HostOp::RunDevicePtr(op.region, kUserAllocSlot);
        }
      }
      t.ops.insert(t.ops.begin(), HostOp::DeviceAlloc(kDefaultStackSizePerWarp, kUserAllocSlot));
      t.ops.push_back(HostOp::DeviceFree(kUserAllocSlot));
    }
  }
  return s;
}

absl::StatusOr<Scenario> Catalogued(const std::string& name) {
  const properties::NamedScenario* named = properties::FindScenario(name);
  if (named == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--scenario must be regions or one of %s, not '%s'", properties::ScenarioNames(), name));
  }
  Scenario s = named->scenario;
  // --mapped_vars, when given, replaces what each region maps; otherwise the
  // scenario's own mappings stand (race-abort-while-mapping's, say).
  if (FlagGiven("mapped_vars")) {
    for (ThreadProgram& t : s.threads) {
      for (HostOp& op : t.ops) {
        if (op.HasRegion()) {
          op.region.mapped_vars = static_cast<std::uint32_t>(absl::GetFlag(FLAGS_mapped_vars));
        }
      }
    }
  }
  if (absl::GetFlag(FLAGS_abort) && !s.threads.empty() && !s.threads[0].ops.empty()) {
    s.threads[0].ops.back().region.aborts = true;
  }
  return s;
}

// The fault flags given, over the scenario's own plan.
absl::Status ApplyFaultFlags(Scenario& s) {
  if (FlagGiven("oom_at")) {
    const int k = absl::GetFlag(FLAGS_oom_at);
    if (absl::Status st = InRange("oom_at", k, 0, kMaxFaultCall); !st.ok()) return st;
    s.faults.alloc_failure_at_call = static_cast<std::uint32_t>(k);
  }
  if (FlagGiven("reject_launch_at")) {
    const int k = absl::GetFlag(FLAGS_reject_launch_at);
    if (absl::Status st = InRange("reject_launch_at", k, 0, kMaxFaultCall); !st.ok()) return st;
    s.faults.launch_failure_at_call = static_cast<std::uint32_t>(k);
  }
  if (FlagGiven("device_constructors")) {
    s.faults.device_constructors = absl::GetFlag(FLAGS_device_constructors);
  }
  if (FlagGiven("device_destructors")) {
    s.faults.device_destructors = absl::GetFlag(FLAGS_device_destructors);
  }
  return absl::OkStatus();
}

// Whether the case is one the known-bug table can key: only the flags the
// key names shaped it.
bool Keyed() {
  for (const char* flag :
       {"scenario_file", "warps", "user_alloc", "is_device_ptr", "enter_data", "oom_at",
        "reject_launch_at", "device_constructors", "device_destructors", "soft_limit", "capacity",
        "shipped_target", "free_no_wait", "concurrent_callbacks"}) {
    if (FlagGiven(flag)) return false;
  }
  return true;
}

}  // namespace

bool RegionsScenarioChosen() {
  return absl::GetFlag(FLAGS_scenario) == "regions" && !FlagGiven("scenario_file");
}

const std::vector<const char*>& SingleScenarioFlags() {
  static const std::vector<const char*>* const flags =
      new std::vector<const char*>{"scenario",
                                   "scenario_file",
                                   "threads",
                                   "regions",
                                   "warps",
                                   "user_alloc",
                                   "is_device_ptr",
                                   "enter_data",
                                   "abort",
                                   "mapped_vars",
                                   "oom_at",
                                   "reject_launch_at",
                                   "device_constructors",
                                   "device_destructors"};
  return *flags;
}

absl::Status ApplyDeviceFlags(properties::Case& c) {
  constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 44;
  if (FlagGiven("soft_limit")) {
    const std::uint64_t v = absl::GetFlag(FLAGS_soft_limit);
    if (v > kMaxBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--soft_limit must be at most %d", kMaxBytes));
    }
    c.scenario.soft_limit = v;
  }
  if (FlagGiven("capacity")) {
    const std::uint64_t v = absl::GetFlag(FLAGS_capacity);
    if (v == 0 || v > kMaxBytes) {
      return absl::InvalidArgumentError(absl::StrFormat("--capacity must be 1..%d", kMaxBytes));
    }
    c.scenario.device_capacity = v;
  }
  if (FlagGiven("shipped_target")) c.scenario.shipped_target = absl::GetFlag(FLAGS_shipped_target);
  if (FlagGiven("free_no_wait")) {
    c.modes.free_waits_for_streams = !absl::GetFlag(FLAGS_free_no_wait);
  }
  if (FlagGiven("concurrent_callbacks")) {
    c.modes.serial_callback_thread = !absl::GetFlag(FLAGS_concurrent_callbacks);
  }
  return absl::OkStatus();
}

absl::StatusOr<CheckCase> CheckCaseFromFlags() {
  const int mapped = absl::GetFlag(FLAGS_mapped_vars);
  if (absl::Status s = InRange("mapped_vars", mapped, 0, 4); !s.ok()) return s;
  CheckCase out;
  const std::string file = absl::GetFlag(FLAGS_scenario_file);
  const std::string name = absl::GetFlag(FLAGS_scenario);
  const bool regions = name == "regions";
  if (FlagGiven("scenario_file")) {
    if (FlagGiven("scenario")) {
      return absl::InvalidArgumentError("give --scenario or --scenario_file, not both");
    }
    for (const char* flag : {"abort", "mapped_vars"}) {
      if (FlagGiven(flag)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("--%s has no effect with --scenario_file: write it in the file", flag));
      }
    }
    absl::StatusOr<properties::Case> c = properties::ReadScenarioFile(file);
    if (!c.ok()) return c.status();
    out.test_case = *c;
    out.name = file;
  } else {
    absl::StatusOr<Scenario> s = regions ? Regions() : Catalogued(name);
    if (!s.ok()) return s.status();
    out.test_case.scenario = *s;
    out.name = name;
  }
  if (absl::Status s = ApplyFaultFlags(out.test_case.scenario); !s.ok()) return s;
  if (absl::Status s = ApplyDeviceFlags(out.test_case); !s.ok()) return s;
  if (Keyed()) {
    out.key = properties::CheckScenarioKey(name, regions ? absl::GetFlag(FLAGS_threads) : 0,
                                           regions ? absl::GetFlag(FLAGS_regions) : 0,
                                           absl::GetFlag(FLAGS_abort), mapped);
  }
  return out;
}

absl::Status CheckStepBoundLetsItEnd(const CheckCase& c, const PolicyInfo& policy) {
  const std::uint64_t bound = c.test_case.modes.step_bound;
  const std::uint64_t standard = properties::CaseModes().step_bound;
  if (bound >= standard) return absl::OkStatus();
  properties::Case probe = c.test_case;
  probe.modes.step_bound = standard;
  probe.schedule.clear();  // the first schedule: every choice its first option
  absl::StatusOr<properties::Execution> e = properties::Execute(probe, policy, {});
  if (!e.ok()) return e.status();
  if (e->steps <= bound || e->steps >= standard) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: modes step_bound=%d is below the %d scheduling steps the scenario takes on its "
      "first schedule under %s; every execution would stop as a livelock of the scenario's "
      "own length. Give step_bound=%d or more (the default is %d)",
      c.name, bound, e->steps, policy.name, e->steps, standard));
}

absl::Status CheckLivelocksAreReal(const CheckCase& c, const PolicyInfo& policy,
                                   const properties::ExploreReport& report) {
  const std::uint64_t bound = c.test_case.modes.step_bound;
  const std::uint64_t standard = properties::CaseModes().step_bound;
  if (bound >= standard) return absl::OkStatus();
  for (const properties::Finding& f : report.findings) {
    if (f.violation.property != "progress") continue;
    properties::Case probe = c.test_case;
    probe.modes.step_bound = standard;
    probe.schedule = f.schedule;
    absl::StatusOr<properties::Execution> e = properties::Execute(probe, policy, {});
    if (!e.ok()) return e.status();
    if (e->steps >= standard) continue;  // a livelock at the default bound too
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: modes step_bound=%d is too small: the schedule of execution %d, reported as a "
        "livelock, ends after %d scheduling steps. Give step_bound=%d or more (the default "
        "is %d)",
        c.name, bound, f.at_execution, e->steps, e->steps, standard));
  }
  return absl::OkStatus();
}

}  // namespace stackcheck::cli
