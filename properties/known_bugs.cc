#include "properties/known_bugs.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "properties/expected_verdicts.h"

namespace stackcheck::properties {

const std::vector<KnownBug>& KnownBugs() {
  // Grouped under the expected_verdicts.cc row whose bug they are (its `why`
  // says what happens). One bug shows several fingerprints: the fatal error
  // that starts an exit path may be an abort, an out-of-memory or a rejected
  // launch, the call that meets an abort first may hold a lock or not, and
  // once an exit path has begun, other threads meet its debris (a destroyed
  // stacks lock, an abort nobody reports). Rows were read off seed-1
  // campaigns of 400,000 executions per policy (with every violation passed,
  // so that what follows the first one was seen too), the corpus and the
  // `check` scenarios of the suites; a fingerprint missing here is reported
  // NEW until someone adds it beside its bug, or fixes the bug. An abort no
  // message reports is judged where the process can first end: where an
  // exit's handlers are done (exit-handlers-done), or at an end that comes at
  // once (process-exit: a return from main, whose handlers run on main).
  static const auto* const rows = new std::vector<KnownBug>({
      // v0-nocache / no-leak
      {"v0-nocache",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc on "
       "host thread holding {}; fault out-of-memory",
       "", ""},
      {"v0-nocache",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc on "
       "host thread holding {}; fault rejected launch",
       "v0-nocache.no-leak.replay", ""},
      // v0-nocache / abort-attribution
      // A copy a trap interrupts fails (SEM-14) on a thread that reports it
      // while the aborting thread is in exit handlers.
      {"v0-nocache",
       "abort-attribution: error-reported on host thread in exit handlers holding "
       "{device lock}; fault abort",
       "", ""},
      {"v0-nocache", "abort-attribution: at the end; fault out-of-memory", "", ""},
      {"v0-nocache", "abort-attribution: at the end; fault rejected launch", "", ""},
      {"v0-nocache",
       "abort-attribution: error-reported on host thread holding {device lock}; fault abort", "",
       ""},
      {"v0-nocache",
       "abort-attribution: error-reported on host thread holding {device lock}; fault "
       "out-of-memory",
       "", ""},
      {"v0-nocache",
       "abort-attribution: error-reported on host thread holding {device lock}; fault rejected "
       "launch",
       "", ""},
      {"v0-nocache",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault out-of-memory",
       "", ""},
      {"v0-nocache",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault rejected launch",
       "", ""},
      {"v0-nocache", "abort-attribution: fatal-reported on host thread holding {}; fault abort",
       "v0-nocache.abort-attribution.replay", ""},
      {"v0-nocache",
       "abort-attribution: fatal-reported on host thread holding {}; fault out-of-memory", "", ""},
      {"v0-nocache",
       "abort-attribution: fatal-reported on host thread holding {}; fault rejected launch", "",
       ""},
      {"v0-nocache",
       "abort-attribution: exit-handlers-done on host thread holding {}; fault out-of-memory", "",
       ""},
      {"v0-nocache",
       "abort-attribution: exit-handlers-done on host thread holding {}; fault rejected launch", "",
       ""},
      {"v0-nocache",
       "abort-attribution: process-exit on host thread in exit handlers holding {}; fault "
       "out-of-memory",
       "", ""},
      {"v0-nocache",
       "abort-attribution: exit-handlers-done on host thread in exit handlers holding {}; fault "
       "out-of-memory",
       "", ""},
      {"v0-nocache",
       "abort-attribution: process-exit on host thread in exit handlers holding {}; fault rejected "
       "launch",
       "", ""},
      {"v0-nocache",
       "abort-attribution: exit-handlers-done on host thread in exit handlers holding {}; fault "
       "rejected "
       "launch",
       "", ""},
      // v1a-callback-unlock / no-use-after-free
      // A region's variable table (or the program memory it uses, by
      // is_device_ptr) freed by gomp_unmap_vars after a run that returned
      // before its kernel ended, with cuMemFree not waiting (SEM-11).
      {"v1a-callback-unlock",
       "no-use-after-free: free on host thread holding {device lock, stacks lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault none",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: free on host thread holding {device lock, stacks lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread "
       "holding {device lock, stacks lock}; fault none",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread "
       "holding {device lock, stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: free on host thread in exit handlers holding {device lock, stacks "
       "lock}; after kernel-enqueue on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault none",
       "v1a-callback-unlock.no-use-after-free.replay", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock, stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault none",
       "", ""},
      {"v1a-callback-unlock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault out-of-memory",
       "", ""},
      // v1a-callback-unlock / no-leak
      {"v1a-callback-unlock",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc on "
       "host thread holding {stacks lock}; fault out-of-memory",
       "v1a-callback-unlock.no-leak.replay", ""},
      // v1a-callback-unlock / no-driver-call-in-callback
      {"v1a-callback-unlock",
       "no-driver-call-in-callback: cuCtxDestroy on callback thread in exit handlers holding "
       "{device lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "no-driver-call-in-callback: cuCtxDestroy on callback thread in exit handlers holding "
       "{device lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-driver-call-in-callback: cuMemFree on callback thread in exit handlers holding {device "
       "lock}; fault abort",
       "v1a-callback-unlock.no-driver-call-in-callback.replay", ""},
      {"v1a-callback-unlock",
       "no-driver-call-in-callback: cuMemFree on callback thread in exit handlers holding {device "
       "lock}; fault out-of-memory",
       "", ""},
      // v1a-callback-unlock / no-deadlock
      {"v1a-callback-unlock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemFree for gpu stream to drain -> gpu stream waits "
       "for callback thread running on callback thread]; fault abort",
       "v1a-callback-unlock.no-deadlock.replay", ""},
      {"v1a-callback-unlock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemFree for gpu stream to drain -> gpu stream waits "
       "for callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemcpyDtoH_v2 for gpu stream to drain -> gpu stream "
       "waits for callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemcpyHtoD_v2 for gpu stream to drain -> gpu stream "
       "waits for callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      // v1a-callback-unlock / mutex-discipline
      {"v1a-callback-unlock",
       "mutex-discipline: mutex-block 'stacks lock' on host thread holding {stacks lock}; fault "
       "abort",
       "", ""},
      {"v1a-callback-unlock",
       "mutex-discipline: mutex-block 'stacks lock' on host thread holding {stacks lock}; fault "
       "none",
       "", ""},
      {"v1a-callback-unlock",
       "mutex-discipline: mutex-block 'stacks lock' on host thread holding {stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "mutex-discipline: mutex-unlock 'stacks lock' on callback thread holding {}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "mutex-discipline: mutex-unlock 'stacks lock' on callback thread holding {}; fault none",
       "v1a-callback-unlock.mutex-discipline.replay", ""},
      {"v1a-callback-unlock",
       "mutex-discipline: mutex-unlock 'stacks lock' on callback thread holding {}; fault "
       "out-of-memory",
       "", ""},
      // v1a-callback-unlock / abort-attribution
      // A copy a trap interrupts fails (SEM-14) on a thread that reports it
      // while the aborting thread is in exit handlers.
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock", "abort-attribution: at the end; fault out-of-memory", "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread holding {device lock, stacks lock}; fault "
       "abort",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread holding {device lock, stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread holding {device lock}; fault abort", "",
       ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread holding {device lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock, "
       "stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: fatal-reported on host thread holding {stacks lock}; fault abort",
       "v1a-callback-unlock.abort-attribution.replay", ""},
      {"v1a-callback-unlock",
       "abort-attribution: fatal-reported on host thread holding {stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: exit-handlers-done on host thread holding {stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: exit-handlers-done on host thread holding {}; fault out-of-memory", "",
       ""},
      {"v1a-callback-unlock",
       "abort-attribution: process-exit on host thread in exit handlers holding {}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "abort-attribution: exit-handlers-done on host thread in exit handlers holding {}; fault "
       "out-of-memory",
       "", ""},
      // v1a-callback-unlock / bounded-cache
      {"v1a-callback-unlock",
       "bounded-cache: cache-held on host thread holding {device lock, stacks lock}; fault none",
       "v1a-callback-unlock.bounded-cache.replay", ""},
      {"v1a-callback-unlock",
       "bounded-cache: cache-held on host thread holding {device lock, stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "bounded-cache: cache-held on host thread holding {device lock}; fault none", "", ""},
      {"v1a-callback-unlock",
       "bounded-cache: cache-held on host thread holding {device lock}; fault out-of-memory", "",
       ""},
      {"v1a-callback-unlock",
       "bounded-cache: cache-held on host thread holding {device lock}; fault rejected launch", "",
       ""},
      // v1a-callback-unlock / no-avoidable-oom
      {"v1a-callback-unlock",
       "no-avoidable-oom: alloc-gave-up on host thread holding {device lock, stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "no-avoidable-oom: alloc-gave-up on host thread holding {device lock}; fault out-of-memory",
       "v1a-callback-unlock.no-avoidable-oom.replay", ""},
      {"v1a-callback-unlock",
       "no-avoidable-oom: alloc-gave-up on host thread holding {device lock}; fault rejected "
       "launch",
       "", ""},
      // v1b-callback-lock / no-use-after-free
      // A region's variable table (or the program memory it uses, by
      // is_device_ptr) freed by gomp_unmap_vars after a run that returned
      // before its kernel ended, with cuMemFree not waiting (SEM-11).
      {"v1b-callback-lock",
       "no-use-after-free: free on host thread holding {device lock}; after kernel-enqueue on "
       "host thread holding {stacks lock}; fault none",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: free on host thread holding {device lock}; after kernel-enqueue on "
       "host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: free on host thread holding {device lock}; after kernel-enqueue on "
       "host thread holding {stacks lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread "
       "holding {device lock}; fault none",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread "
       "holding {device lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread "
       "holding {device lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault none",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault none",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault rejected launch",
       "v1b-callback-lock.no-use-after-free.replay", ""},
      // v1b-callback-lock / no-leak
      {"v1b-callback-lock",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc on "
       "host thread holding {stacks lock}; fault out-of-memory",
       "v1b-callback-lock.no-leak.replay", ""},
      {"v1b-callback-lock",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc on "
       "host thread holding {stacks lock}; fault rejected launch",
       "", ""},
      // v1b-callback-lock / no-driver-call-in-callback
      {"v1b-callback-lock",
       "no-driver-call-in-callback: cuCtxDestroy on callback thread in exit handlers holding "
       "{device lock}; fault abort",
       "", ""},
      {"v1b-callback-lock",
       "no-driver-call-in-callback: cuCtxDestroy on callback thread in exit handlers holding "
       "{device lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-driver-call-in-callback: cuCtxDestroy on callback thread in exit handlers holding "
       "{device lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "no-driver-call-in-callback: cuMemFree on callback thread in exit handlers holding {device "
       "lock}; fault abort",
       "v1b-callback-lock.no-driver-call-in-callback.replay", ""},
      {"v1b-callback-lock",
       "no-driver-call-in-callback: cuMemFree on callback thread in exit handlers holding {device "
       "lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-driver-call-in-callback: cuMemFree on callback thread in exit handlers holding {device "
       "lock}; fault rejected launch",
       "", ""},
      // v1b-callback-lock / no-deadlock
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemFree for gpu stream to drain -> gpu stream waits "
       "for callback thread running on callback thread]; fault abort",
       "", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemFree for gpu stream to drain -> gpu stream waits "
       "for callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemcpyDtoH_v2 for gpu stream to drain -> gpu stream "
       "waits for callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits in cuMemcpyHtoD_v2 for gpu stream to drain -> gpu stream "
       "waits for callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread waits for mutex 'stacks lock' held by host thread -> "
       "host thread waits in cuCtxSynchronize for gpu stream to drain -> gpu stream waits for "
       "callback thread running on callback thread]; fault abort",
       "", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread waits for mutex 'stacks lock' held by host thread -> "
       "host thread waits in cuCtxSynchronize for gpu stream to drain -> gpu stream waits for "
       "callback thread running on callback thread]; fault none",
       "v1b-callback-lock.no-deadlock.replay", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread waits for mutex 'stacks lock' held by host thread -> "
       "host thread waits in cuCtxSynchronize for gpu stream to drain -> gpu stream waits for "
       "callback thread running on callback thread]; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "no-deadlock: cycle [callback thread waits for mutex 'stacks lock' held by host thread -> "
       "host thread waits in cuCtxSynchronize for gpu stream to drain -> gpu stream waits for "
       "callback thread running on callback thread]; fault rejected launch",
       "", ""},
      // v1b-callback-lock / abort-attribution
      // The release callback of a region that completed meets another
      // region's abort (the context is poisoned) and raises the fatal error
      // for its own region.
      {"v1b-callback-lock",
       "abort-attribution: fatal-reported on callback thread holding {}; fault abort", "", ""},
      {"v1b-callback-lock",
       "abort-attribution: fatal-reported on callback thread holding {}; fault out-of-memory", "",
       ""},
      {"v1b-callback-lock",
       "abort-attribution: fatal-reported on callback thread holding {}; fault rejected launch", "",
       ""},
      {"v1b-callback-lock", "abort-attribution: at the end; fault out-of-memory", "", ""},
      {"v1b-callback-lock", "abort-attribution: at the end; fault rejected launch", "", ""},
      {"v1b-callback-lock",
       "abort-attribution: error-reported on host thread holding {device lock}; fault abort", "",
       ""},
      {"v1b-callback-lock",
       "abort-attribution: error-reported on host thread holding {device lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: error-reported on host thread holding {device lock}; fault rejected "
       "launch",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault abort",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: fatal-reported on host thread holding {}; fault abort",
       "v1b-callback-lock.abort-attribution.replay", ""},
      {"v1b-callback-lock",
       "abort-attribution: fatal-reported on host thread holding {}; fault out-of-memory", "", ""},
      {"v1b-callback-lock",
       "abort-attribution: fatal-reported on host thread holding {}; fault rejected launch", "",
       ""},
      {"v1b-callback-lock",
       "abort-attribution: exit-handlers-done on host thread holding {}; fault out-of-memory", "",
       ""},
      {"v1b-callback-lock",
       "abort-attribution: exit-handlers-done on host thread holding {}; fault rejected launch", "",
       ""},
      {"v1b-callback-lock",
       "abort-attribution: process-exit on host thread in exit handlers holding {}; fault "
       "out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: exit-handlers-done on host thread in exit handlers holding {}; fault "
       "out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: process-exit on host thread in exit handlers holding {}; fault rejected "
       "launch",
       "", ""},
      {"v1b-callback-lock",
       "abort-attribution: exit-handlers-done on host thread in exit handlers holding {}; fault "
       "rejected "
       "launch",
       "", ""},
      // v1b-callback-lock / bounded-cache
      {"v1b-callback-lock",
       "bounded-cache: cache-held on host thread holding {device lock}; fault none",
       "v1b-callback-lock.bounded-cache.replay", ""},
      {"v1b-callback-lock",
       "bounded-cache: cache-held on host thread holding {device lock}; fault out-of-memory", "",
       ""},
      {"v1b-callback-lock",
       "bounded-cache: cache-held on host thread holding {device lock}; fault rejected launch", "",
       ""},
      // v1b-callback-lock / no-avoidable-oom
      {"v1b-callback-lock",
       "no-avoidable-oom: alloc-gave-up on host thread holding {device lock}; fault out-of-memory",
       "v1b-callback-lock.no-avoidable-oom.replay", ""},
      {"v1b-callback-lock",
       "no-avoidable-oom: alloc-gave-up on host thread holding {device lock}; fault rejected "
       "launch",
       "", ""},
      // v2-gcc11 / no-deadlock
      {"v2-gcc11",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault abort",
       "", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v2-gcc11",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault "
       "out-of-memory",
       "v2-gcc11.no-deadlock.replay", ""},
      {"v2-gcc11",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault "
       "rejected launch",
       "", ""},
      // v2-gcc11 / mutex-discipline
      {"v2-gcc11",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault abort",
       "", "regions threads=2 regions=1 abort=1 mapped_vars=0"},
      {"v2-gcc11",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault out-of-memory",
       "", ""},
      {"v2-gcc11",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault rejected launch",
       "v2-gcc11.mutex-discipline.replay", ""},
      {"v2-gcc11",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock}; fault abort",
       "", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v2-gcc11",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock}; fault out-of-memory",
       "", ""},
      {"v2-gcc11",
       "mutex-discipline: mutex-lock 'stacks lock' on host thread holding {}; fault out-of-memory",
       "", ""},
      // v2-gcc11 / abort-attribution
      {"v2-gcc11",
       "abort-attribution: error-reported on host thread holding {device lock}; fault abort",
       "v2-gcc11.abort-attribution.replay", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v2-gcc11",
       "abort-attribution: error-reported on host thread holding {device lock}; fault "
       "out-of-memory",
       "", ""},
      {"v2-gcc11",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault abort",
       "", ""},
      {"v2-gcc11",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault out-of-memory",
       "", ""},
      // v2-gcc11 / no-leak
      {"v2-gcc11",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc "
       "on host thread holding {stacks lock}; fault out-of-memory",
       "v2-gcc11.no-leak.replay", ""},
      // v2-gcc11 / no-use-after-free
      {"v2-gcc11",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v2-gcc11",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault out-of-memory",
       "v2-gcc11.no-use-after-free.replay", ""},
      // v3-trunk / no-leak
      {"v3-trunk",
       "no-leak: ctx-destroy on host thread in exit handlers holding {device lock}; after alloc "
       "on host thread holding {stacks lock}; fault out-of-memory",
       "v3-trunk.no-leak.replay", ""},
      // v3-trunk / no-deadlock
      {"v3-trunk",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault abort",
       "", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v3-trunk",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault "
       "out-of-memory",
       "", ""},
      {"v3-trunk",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'device lock' held by "
       "host thread -> host thread waits for mutex 'stacks lock' held by host thread]; fault "
       "rejected launch",
       "", ""},
      {"v3-trunk",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'stacks lock' held by "
       "host thread itself (relock)]; fault out-of-memory",
       "v3-trunk.no-deadlock.replay", ""},
      {"v3-trunk",
       "no-deadlock: cycle [host thread in exit handlers waits for mutex 'stacks lock' held by "
       "host thread itself (relock)]; fault rejected launch",
       "", ""},
      // v3-trunk / mutex-discipline
      {"v3-trunk",
       "mutex-discipline: mutex-block 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault out-of-memory",
       "", ""},
      {"v3-trunk",
       "mutex-discipline: mutex-block 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault rejected launch",
       "", ""},
      {"v3-trunk",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault abort",
       "", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v3-trunk",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault out-of-memory",
       "", ""},
      {"v3-trunk",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault rejected launch",
       "v3-trunk.mutex-discipline.replay", ""},
      {"v3-trunk",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock}; fault abort",
       "", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v3-trunk",
       "mutex-discipline: mutex-destroy 'stacks lock' on host thread in exit handlers holding "
       "{device lock}; fault out-of-memory",
       "", ""},
      {"v3-trunk",
       "mutex-discipline: mutex-lock 'stacks lock' on host thread holding {}; fault out-of-memory",
       "", ""},
      // v3-trunk / abort-attribution
      {"v3-trunk",
       "abort-attribution: error-reported on host thread in exit handlers holding "
       "{device lock}; fault abort",
       "", ""},
      // A copy a trap interrupts fails (SEM-14) on a thread that reports it
      // while the aborting thread is in exit handlers.
      {"v3-trunk",
       "abort-attribution: error-reported on host thread in exit handlers holding "
       "{device lock, stacks lock}; fault abort",
       "", ""},
      {"v3-trunk",
       "abort-attribution: error-reported on host thread holding {device lock}; fault abort",
       "v3-trunk.abort-attribution.replay", "regions threads=2 regions=1 abort=1 mapped_vars=1"},
      {"v3-trunk",
       "abort-attribution: error-reported on host thread holding {device lock}; fault "
       "out-of-memory",
       "", ""},
      {"v3-trunk",
       "abort-attribution: error-reported on host thread in exit handlers holding {device lock}; "
       "fault out-of-memory",
       "", ""},
      // v3-trunk / no-use-after-free
      {"v3-trunk",
       "no-use-after-free: free on host thread in exit handlers holding {device lock}; after "
       "kernel-enqueue on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v3-trunk",
       "no-use-after-free: kernel-start on gpu stream holding {}; after free on host thread in "
       "exit handlers holding {device lock}; fault out-of-memory",
       "v3-trunk.no-use-after-free.replay", ""},
      // v1a-callback-unlock / data-race
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock}; fault rejected launch",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on callback thread in exit handlers holding {device lock} "
       "and shared-access write on host thread holding {stacks lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on callback thread in exit handlers holding {device lock} "
       "and shared-access write on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on callback thread in exit handlers holding {device lock}; fault abort",
       "v1a-callback-unlock.data-race.replay", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on callback thread in exit handlers holding {device lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock, stacks lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock, stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock, "
       "stacks lock} and shared-access write on host thread holding {stacks lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock, "
       "stacks lock} and shared-access write on host thread holding {stacks lock}; fault "
       "out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault abort",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1a-callback-unlock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault rejected launch",
       "", ""},
      // v1b-callback-lock / data-race
      {"v1b-callback-lock",
       "data-race: shared-access read on callback thread in exit handlers holding {device lock} "
       "and shared-access write on host thread holding {stacks lock}; fault abort",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on callback thread in exit handlers holding {device lock} "
       "and shared-access write on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on callback thread in exit handlers holding {device lock} "
       "and shared-access write on host thread holding {stacks lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on callback thread in exit handlers holding {device lock}; fault abort",
       "v1b-callback-lock.data-race.replay", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on callback thread in exit handlers holding {device lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on callback thread in exit handlers holding {device lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock}; fault abort",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread holding {stacks lock} and shared-access "
       "write on host thread in exit handlers holding {device lock}; fault rejected launch",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault abort",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      {"v1b-callback-lock",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault rejected launch",
       "", ""},
      // v2-gcc11 / data-race
      // nvptx_close_device reads the stacks block without the lock while a
      // thread past the destroyed lock grows it; close itself writes nothing
      // back (it frees the whole device record).
      {"v2-gcc11",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault abort",
       "v2-gcc11.data-race.replay", ""},
      {"v2-gcc11",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
      // v3-trunk / data-race
      {"v3-trunk",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault abort",
       "v3-trunk.data-race.replay", ""},
      {"v3-trunk",
       "data-race: shared-access read on host thread in exit handlers holding {device lock} and "
       "shared-access write on host thread holding {stacks lock}; fault out-of-memory",
       "", ""},
  });
  return *rows;
}

absl::string_view FingerprintProperty(absl::string_view fingerprint) {
  const std::size_t colon = fingerprint.find(':');
  return colon == absl::string_view::npos ? fingerprint : fingerprint.substr(0, colon);
}

bool IsKnownBug(absl::string_view policy, absl::string_view fingerprint) {
  // Asked at every violation an exploration passes: a hash lookup.
  static const auto* const index = [] {
    auto* set = new absl::flat_hash_set<std::pair<absl::string_view, absl::string_view>>();
    for (const KnownBug& bug : KnownBugs()) set->emplace(bug.policy, bug.fingerprint);
    return set;
  }();
  return index->contains(std::make_pair(policy, fingerprint));
}

bool IsKnownViolation(absl::string_view policy, const sim::Violation& violation) {
  return IsKnownBug(policy, violation.fingerprint) ||
         ExpectedVerdict(policy, violation.property) == Expectation::kAcceptedDeviation;
}

std::vector<const KnownBug*> KnownBugsOf(absl::string_view policy, absl::string_view property) {
  std::vector<const KnownBug*> out;
  for (const KnownBug& bug : KnownBugs()) {
    if (bug.policy != policy) continue;
    if (!property.empty() && FingerprintProperty(bug.fingerprint) != property) continue;
    out.push_back(&bug);
  }
  return out;
}

std::string CheckScenarioKey(absl::string_view scenario, int threads, int regions, bool abort,
                             int mapped_vars) {
  return absl::StrFormat("%s threads=%d regions=%d abort=%d mapped_vars=%d", scenario, threads,
                         regions, abort ? 1 : 0, mapped_vars);
}

}  // namespace stackcheck::properties
