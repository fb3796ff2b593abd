#include "hardware/hardware_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/scenario_runner.h"
#include "hardware/hardware_judgements.h"
#include "hardware/run_observer.h"
#include "hardware/run_record.h"
#include "properties/catalogue.h"
#include "real/activity_log.h"
#include "real/cuda_device.h"
#include "real/os_host.h"
#include "real/shaken_device.h"
#include "real/shaken_host.h"

namespace stackcheck::hardware {
namespace {

// Exit codes the child uses for its own endings (the runtime uses 0 and 1).
constexpr int kWatchdogExit = 86;
constexpr int kSetupExit = 87;
// The parent's backstop beyond the child's own watchdog.
constexpr absl::Duration kKillGrace = absl::Seconds(10);

void CopyText(char* dst, std::size_t size, absl::string_view text) {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

absl::Duration TotalKernelTime(const Scenario& s) {
  std::uint64_t ns = 0;
  for (const ThreadProgram& t : s.threads) {
    for (const HostOp& op : t.ops) {
      if (op.HasRegion()) ns += op.region.duration_ns;
    }
  }
  return absl::Nanoseconds(ns);
}

// How long the child may run before its watchdog fires: the watchdog's own
// margin on top of the time the kernels and the start delays take.
absl::Duration WatchdogLimit(const Scenario& scenario, const HardwareRunOptions& options) {
  absl::Duration limit = options.watchdog + TotalKernelTime(scenario);
  for (absl::Duration d : options.spawn_delays) limit += d;
  return limit;
}

// Copies the device's view into the record. With `device_counter` false it
// makes no driver call (the watchdog's case: the driver may be what hangs).
void SnapshotDevice(RunRecord& rec, real::CudaDevice& device, bool device_counter,
                    std::uint64_t baseline_destroys) {
  const real::KernelReport k = device.ReadKernelReport(device_counter);
  const real::DeviceLedger l = device.Ledger();
  rec.corruptions = k.corruptions;
  rec.corrupt_expected = k.expected;
  rec.corrupt_observed = k.observed;
  rec.warps_checked = k.warps_checked;
  rec.warps_checked_known = k.warps_checked_known;
  rec.context_destroyed = l.destroys > baseline_destroys;
  rec.leaked_blocks = rec.context_destroyed ? l.leaked_blocks_at_destroy : l.live_blocks;
  rec.leaked_bytes = rec.context_destroyed ? l.leaked_bytes_at_destroy : l.live_bytes;
  rec.free_at_close_known = rec.context_destroyed && l.free_at_destroy_known;
  rec.free_at_close = l.free_at_destroy;
  rec.calls_from_callback = l.calls_from_callback;
  CopyText(rec.first_call_from_callback, sizeof(rec.first_call_from_callback),
           l.first_call_from_callback);
  rec.callbacks_run = l.callbacks_run;
  rec.callbacks_run_with_error = l.callbacks_run_with_error;
  rec.peak_bytes = l.peak_bytes;
  rec.device_snapshot = true;
}

[[noreturn]] void SetupFailed(RunRecord& rec, absl::string_view why) {
  CopyText(rec.setup_error, sizeof(rec.setup_error), why);
  _exit(kSetupExit);
}

// Baseline: free memory on a fresh context holding only the backend's own
// counter, as the runtime's context will at close if nothing leaked.
void RecordBaseline(RunRecord& rec, real::CudaDevice& cuda) {
  if (CuResult r = cuda.Init(); r != CuResult::kSuccess) {
    SetupFailed(rec, absl::StrCat("cuInit: ", CuResultName(r)));
  }
  if (CuResult r = cuda.CtxCreate(); r != CuResult::kSuccess) {
    SetupFailed(rec, absl::StrCat("context: ", CuResultName(r)));
  }
  MemInfo info;
  if (cuda.MemGetInfo(&info) == CuResult::kSuccess) {
    rec.free_at_start = info.free_bytes;
    rec.baseline_known = true;
  }
  cuda.CtxDestroy();
}

// The first mutex misuse goes into the record; the others are only counted.
void RecordMutexAnomalies(RunRecord& rec, real::OsHost& os) {
  os.anomalies().SetHook([&rec, &os](const real::MutexAnomaly& a) {
    if (rec.mutex_anomalies.fetch_add(1) != 0) return;
    CopyText(rec.first_mutex_anomaly, sizeof(rec.first_mutex_anomaly),
             absl::StrFormat("%s of '%s' by %s (owner: %s)", real::MutexAnomalyName(a.kind),
                             a.mutex, os.ThreadName(a.thread),
                             a.owner == kNoThread ? std::string("none") : os.ThreadName(a.owner)));
  });
}

// Ends the child, with what the device shows, once `limit` has passed.
void StartWatchdog(RunRecord& rec, real::CudaDevice& cuda, const real::Jitter& jitter,
                   absl::Duration limit, std::uint64_t baseline_destroys) {
  std::thread([&rec, &cuda, &jitter, limit, baseline_destroys] {
    absl::SleepFor(limit);
    rec.watchdog_at_ns = real::MonotonicNowNs();
    rec.watchdog_fired = true;
    SnapshotDevice(rec, cuda, /*device_counter=*/false, baseline_destroys);
    rec.jitter_delays = jitter.delays();
    _exit(kWatchdogExit);
  }).detach();
}

[[noreturn]] void ChildMain(RunRecord& rec, const Scenario& scenario, const PolicyInfo& policy,
                            const HardwareRunOptions& options) {
  real::OsHost os;
  real::ActivityLog log(&rec.activity);
  log.NameThread("main");
  absl::StatusOr<std::unique_ptr<real::CudaDevice>> created =
      real::CudaDevice::Create(options.device_ordinal);
  if (!created.ok()) SetupFailed(rec, created.status().message());
  real::CudaDevice& cuda = **created;
  RecordBaseline(rec, cuda);
  const std::uint64_t baseline_destroys = cuda.Ledger().destroys;

  real::Jitter jitter(options.jitter);
  real::ShakenDevice device(cuda, jitter, log);
  real::ShakenHost host(os, jitter, log);
  host.set_spawn_delays(options.spawn_delays);
  RunObserver observer(rec, cuda, scenario.soft_limit, policy.cache_bound);
  device.set_launch_hook([&observer](const KernelArgs& args, StreamHandle stream, CuResult r) {
    observer.KernelLaunched(args, stream, r);
  });
  std::atomic<std::uint32_t> allocs{0};
  device.set_alloc_gate([&](std::uint64_t bytes) {
    const std::uint32_t n = ++allocs;
    if (scenario.faults.alloc_failure_at_call == n) {
      ++rec.injected_alloc_failures;
      return true;
    }
    return options.emulate_capacity && cuda.Ledger().live_bytes + bytes > scenario.device_capacity;
  });
  std::atomic<std::uint32_t> launches{0};
  device.set_launch_gate([&] {
    return scenario.faults.launch_failure_at_call != 0 &&
           ++launches == scenario.faults.launch_failure_at_call;
  });
  RecordMutexAnomalies(rec, os);
  if (!options.in_process) {
    StartWatchdog(rec, cuda, jitter, WatchdogLimit(scenario, options), baseline_destroys);
  }

  // Registered before the runtime's own handler, so it runs after the
  // device is closed: the snapshot sees the close's leaks.
  host.AtExit([&rec, &cuda, &jitter, baseline_destroys] {
    SnapshotDevice(rec, cuda, /*device_counter=*/true, baseline_destroys);
    rec.jitter_delays = jitter.delays();
  });
  RunScenario(scenario, device, host, observer, policy);
  // Only without close_at_end: the device is still open.
  SnapshotDevice(rec, cuda, /*device_counter=*/true, baseline_destroys);
  rec.jitter_delays = jitter.delays();
  std::fflush(nullptr);
  _exit(0);
}

}  // namespace

namespace {

std::vector<std::string> Facts(const RunRecord& rec) {
  std::vector<std::string> f;
  f.push_back(absl::StrFormat("regions begun %d, ended %d", rec.regions_begun.load(),
                              rec.regions_ended.load()));
  if (rec.fatals > 0) {
    f.push_back(absl::StrFormat(
        "fatal x%d, first: region %d, %s, \"%s\"", rec.fatals.load(), rec.fatal_region,
        CuResultName(static_cast<CuResult>(rec.fatal_code)), rec.fatal_message));
  }
  if (rec.device_snapshot) {
    f.push_back(absl::StrFormat(
        "kernels: %d corruption(s), %s warps checked; peak %.1f MiB allocated", rec.corruptions,
        rec.warps_checked_known ? absl::StrCat(rec.warps_checked) : "?",
        static_cast<double>(rec.peak_bytes) / kMiB));
    f.push_back(absl::StrFormat("close: context %s, %d block(s) / %.1f MiB left",
                                rec.context_destroyed ? "destroyed" : "not destroyed",
                                rec.leaked_blocks, static_cast<double>(rec.leaked_bytes) / kMiB));
    if (rec.baseline_known && rec.free_at_close_known) {
      f.push_back(absl::StrFormat("cuMemGetInfo free: %.1f MiB at start, %.1f MiB before destroy",
                                  static_cast<double>(rec.free_at_start) / kMiB,
                                  static_cast<double>(rec.free_at_close) / kMiB));
    }
    f.push_back(absl::StrFormat("callbacks run %d (with error status %d)", rec.callbacks_run,
                                rec.callbacks_run_with_error));
  }
  if (rec.injected_alloc_failures > 0) {
    f.push_back(
        absl::StrFormat("injected cuMemAlloc failures: %d", rec.injected_alloc_failures.load()));
  }
  f.push_back(absl::StrFormat("jitter delays: %d", rec.jitter_delays));
  return f;
}

// The scenario with every region's kernel running at least `min`.
Scenario WithKernelsAtLeast(const Scenario& original, absl::Duration min) {
  Scenario scenario = original;
  const std::uint64_t min_ns = static_cast<std::uint64_t>(absl::ToInt64Nanoseconds(min));
  for (ThreadProgram& t : scenario.threads) {
    for (HostOp& op : t.ops) {
      op.region.duration_ns = std::max(op.region.duration_ns, min_ns);
    }
  }
  return scenario;
}

// The runtime's messages would interleave with the caller's report; the
// record carries what matters.
void SilenceOutput() {
  const int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
  }
}

struct ChildExit {
  int status = 0;  // waitpid's
  bool killed = false;
};

// Waits for the child, killing it once past `hard_deadline`: a backstop for
// a child whose own watchdog could not end it.
absl::StatusOr<ChildExit> AwaitChild(pid_t pid, absl::Time hard_deadline) {
  ChildExit ended;
  for (;;) {
    const pid_t done = waitpid(pid, &ended.status, WNOHANG);
    if (done == pid) return ended;
    if (done < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
    }
    if (absl::Now() > hard_deadline && !ended.killed) {
      kill(pid, SIGKILL);
      ended.killed = true;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
}

void SetEnding(const ChildExit& ended, const RunRecord& rec, HardwareRunResult& result) {
  const int status = ended.status;
  if (ended.killed) {
    result.ending = HardwareRunResult::Ending::kKilled;
    result.signal = SIGKILL;
  } else if (WIFSIGNALED(status)) {
    result.ending = HardwareRunResult::Ending::kCrashed;
    result.signal = WTERMSIG(status);
  } else if (WEXITSTATUS(status) == kSetupExit) {
    result.ending = HardwareRunResult::Ending::kSetupFailed;
    result.setup_error = rec.setup_error;
  } else if (WEXITSTATUS(status) == kWatchdogExit && rec.watchdog_fired) {
    result.ending = HardwareRunResult::Ending::kWatchdog;
  } else {
    result.ending = HardwareRunResult::Ending::kExited;
    result.exit_status = WEXITSTATUS(status);
  }
}

// The hang report, each property's verdict and the facts of a run that got
// past its setup.
void Judge(const RunRecord& rec, const Scenario& scenario, HardwareRunResult& result) {
  if (result.Hung()) {
    const std::int64_t at = rec.watchdog_fired ? rec.watchdog_at_ns : real::MonotonicNowNs();
    result.hang_report = real::DescribeActivity(rec.activity, at);
  }
  for (const properties::PropertyInfo& info : properties::AllProperties()) {
    result.properties.push_back(JudgeOnHardware(info.name, rec, scenario, result));
  }
  result.facts = Facts(rec);
}

}  // namespace

absl::string_view HwVerdictName(HwVerdict v) {
  switch (v) {
    case HwVerdict::kHolds:
      return "holds";
    case HwVerdict::kViolated:
      return "VIOLATED";
    case HwVerdict::kNotObserved:
      return "-";
  }
  return "?";
}

const PropertyResult* HardwareRunResult::Find(absl::string_view name) const {
  for (const PropertyResult& p : properties) {
    if (p.property == name) return &p;
  }
  return nullptr;
}

std::string HardwareRunResult::EndingText() const {
  switch (ending) {
    case Ending::kExited:
      return absl::StrCat("exit ", exit_status);
    case Ending::kWatchdog:
      return "hang (watchdog)";
    case Ending::kKilled:
      return "hang (killed)";
    case Ending::kCrashed:
      return absl::StrCat("signal ", signal);
    case Ending::kSetupFailed:
      return absl::StrCat("setup failed: ", setup_error);
  }
  return "?";
}

absl::StatusOr<HardwareRunResult> RunOnHardware(const Scenario& original, const PolicyInfo& policy,
                                                const HardwareRunOptions& options) {
  const Scenario scenario = WithKernelsAtLeast(original, options.min_kernel_duration);
  void* mem =
      mmap(nullptr, sizeof(RunRecord), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return absl::InternalError(absl::StrCat("mmap: ", std::strerror(errno)));
  }
  RunRecord* rec = new (mem) RunRecord();
  if (options.in_process) ChildMain(*rec, scenario, policy, options);
  struct Unmap {
    void* mem;
    ~Unmap() { munmap(mem, sizeof(RunRecord)); }
  } unmap{mem};

  std::fflush(nullptr);  // nothing buffered may be written twice
  const absl::Time start = absl::Now();
  const pid_t pid = fork();
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    SilenceOutput();
    ChildMain(*rec, scenario, policy, options);
  }

  absl::StatusOr<ChildExit> ended =
      AwaitChild(pid, start + WatchdogLimit(scenario, options) + kKillGrace);
  if (!ended.ok()) return ended.status();
  HardwareRunResult result;
  result.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  SetEnding(*ended, *rec, result);
  if (result.ending == HardwareRunResult::Ending::kSetupFailed) return result;
  Judge(*rec, scenario, result);
  return result;
}

}  // namespace stackcheck::hardware
