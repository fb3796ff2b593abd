// What one hardware run leaves for the process that judges it. The runner
// forks a child per run (a sticky error cannot be undone in-process, SEM-05)
// and the child writes this record into a MAP_SHARED mapping as things
// happen, so the parent can read it whether the child exits, is killed by the
// watchdog, or crashes.
#ifndef STACKCHECK_HARDWARE_RUN_RECORD_H_
#define STACKCHECK_HARDWARE_RUN_RECORD_H_

#include <atomic>
#include <cstdint>

#include "core/observer.h"
#include "real/activity_log.h"

namespace stackcheck::hardware {

struct RunRecord {
  real::ActivityTable activity;

  // Set up.
  char setup_error[200] = {};
  std::atomic<bool> baseline_known{false};
  std::uint64_t free_at_start = 0;  // cuMemGetInfo on a fresh context

  // The runtime, through the observer.
  std::atomic<std::uint32_t> regions_begun{0};
  std::atomic<std::uint32_t> regions_ended{0};
  std::atomic<std::uint32_t> fatals{0};
  RegionId fatal_region = kNoRegion;  // the first fatal report
  int fatal_code = 0;
  char fatal_message[200] = {};
  std::atomic<std::uint32_t> cache_over_bound{0};
  std::uint64_t cache_worst_held = 0;
  std::uint64_t cache_worst_bound = 0;
  // Regions whose kernel was still running when run() returned.
  std::atomic<std::uint32_t> returned_before_kernel_done{0};
  std::atomic<std::uint32_t> injected_alloc_failures{0};

  // The host: mutex anomalies (real/os_host.h).
  std::atomic<std::uint32_t> mutex_anomalies{0};
  char first_mutex_anomaly[160] = {};

  // The device, snapshotted at exit (or by the watchdog).
  std::atomic<bool> device_snapshot{false};
  std::uint64_t corruptions = 0;
  std::uint64_t corrupt_expected = 0;
  std::uint64_t corrupt_observed = 0;
  std::uint64_t warps_checked = 0;
  bool warps_checked_known = false;
  bool context_destroyed = false;   // the runtime's close reached CtxDestroy
  std::uint64_t leaked_blocks = 0;  // at CtxDestroy, or live at the end
  std::uint64_t leaked_bytes = 0;
  bool free_at_close_known = false;
  std::uint64_t free_at_close = 0;  // cuMemGetInfo just before CtxDestroy
  std::uint64_t calls_from_callback = 0;
  char first_call_from_callback[48] = {};
  std::uint64_t callbacks_run = 0;
  std::uint64_t callbacks_run_with_error = 0;
  std::uint64_t peak_bytes = 0;
  std::uint64_t jitter_delays = 0;

  // How it ended, as the child saw it.
  std::atomic<bool> watchdog_fired{false};
  std::int64_t watchdog_at_ns = 0;
};

}  // namespace stackcheck::hardware

#endif  // STACKCHECK_HARDWARE_RUN_RECORD_H_
