#!/usr/bin/env bash
# hardware/observe/libstackcheck_observe.so loaded into a real program on the
# simulated driver: the program still works, the plugin's calls are timed,
# the watchdog turns a run that does not end into a report, and steering
# holds a thread's call until the calls recorded before it have been entered.
set -euo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}
tmp=${TEST_TMPDIR:-$(mktemp -d)}
status=0
LD_PRELOAD=$here/hardware/observe/libstackcheck_observe.so \
  LD_LIBRARY_PATH=$here/sim/libcuda OMP_TARGET_OFFLOAD=MANDATORY \
  STACKCHECK_OBSERVE_JITTER_US=50 STACKCHECK_OBSERVE_OUT=$tmp/observe.txt \
  "$here/tests/programs/threads_regions" 2 3 8 4 >"$tmp/out" 2>&1 || status=$?
cat "$tmp/out" "$tmp/observe.txt"
[[ $status -eq 0 ]] || { echo "FAIL: the program exited $status"; exit 1; }
grep -q '^threads_regions: 2 threads x 3 regions' "$tmp/out" || { echo "FAIL: no result line"; exit 1; }
grep -Eq '^  GOMP_OFFLOAD_run +6 ' "$tmp/observe.txt" || { echo "FAIL: 6 runs not timed"; exit 1; }
grep -Eq '^  cuLaunchKernel +6 ' "$tmp/observe.txt" || { echo "FAIL: 6 launches not timed"; exit 1; }
grep -Eq '^  cuCtxSynchronize +[0-9]+ ' "$tmp/observe.txt" || { echo "FAIL: no sync timed"; exit 1; }
# The watchdog turns a run that does not end into a report and status 87.
status=0
LD_PRELOAD=$here/hardware/observe/libstackcheck_observe.so STACKCHECK_OBSERVE_WATCHDOG_S=1 \
  STACKCHECK_OBSERVE_OUT=$tmp/stuck.txt sleep 30 || status=$?
cat "$tmp/stuck.txt"
[[ $status -eq 87 ]] || { echo "FAIL: the watchdog did not end a stuck process ($status)"; exit 1; }
grep -q 'STUCK: still running after 1 s' "$tmp/stuck.txt" || { echo "FAIL: no stuck report"; exit 1; }
# Steering: T1's first region waits for T2's first (met, nothing given up);
# a call that never comes is waited for until the timeout, then steering stops.
observe() {  # observe STEER-FILE OUT
  LD_PRELOAD=$here/hardware/observe/libstackcheck_observe.so \
    LD_LIBRARY_PATH=$here/sim/libcuda OMP_TARGET_OFFLOAD=MANDATORY \
    STACKCHECK_OBSERVE_STEER=$1 STACKCHECK_OBSERVE_STEER_TIMEOUT_S=1 STACKCHECK_OBSERVE_OUT=$2 \
    "$here/tests/programs/threads_regions" 2 1 8 4 >"$tmp/steer.out" 2>&1
}
printf '# order\nT2 GOMP_OFFLOAD_run\nT2 cuLinkAddData_v2\nT1 GOMP_OFFLOAD_run\n' >"$tmp/order.steer"
observe "$tmp/order.steer" "$tmp/order.txt" || { cat "$tmp/steer.out"; echo "FAIL: steered run"; exit 1; }
cat "$tmp/order.txt"
grep -q 'steering: 2 recorded calls, 2 met, [01] held' "$tmp/order.txt" || { echo "FAIL: steering"; exit 1; }
grep -q 'GAVE UP' "$tmp/order.txt" && { echo "FAIL: steering gave up"; exit 1; }
printf 'T2 GOMP_OFFLOAD_fini_device\nT1 GOMP_OFFLOAD_run\n' >"$tmp/never.steer"
observe "$tmp/never.steer" "$tmp/never.txt" || { cat "$tmp/steer.out"; echo "FAIL: steered run"; exit 1; }
cat "$tmp/never.txt"
grep -q 'GAVE UP: T1 waited 1 s for entry 1 (T2 GOMP_OFFLOAD_fini_device)' "$tmp/never.txt" ||
  { echo "FAIL: no give-up report"; exit 1; }
printf 'T1 GOMP_OFFLOAD_run\nbad line\n' >"$tmp/bad.steer"
status=0
observe "$tmp/bad.steer" "$tmp/bad.txt" || status=$?
[[ $status -eq 2 ]] && grep -q "line 2: not 'T<k> <call>'" "$tmp/steer.out" ||
  { cat "$tmp/steer.out"; echo "FAIL: a bad steering file should exit 2 with a message ($status)"; exit 1; }

# Faults on the real driver, as exec's plans put them: one failed allocation
# is retried by the plugin, two in a row make the mapping fatal.
oom() {  # oom AT: threads_regions 1 2 with those cuMemAlloc calls failing
  LD_PRELOAD=$here/hardware/observe/libstackcheck_observe.so LD_LIBRARY_PATH=$here/sim/libcuda \
    OMP_TARGET_OFFLOAD=MANDATORY \
    STACKCHECK_OBSERVE_OOM_AT=$1 "$here/tests/programs/threads_regions" 1 2 8 4 >"$tmp/oom.out" 2>&1
}
oom 3 || { cat "$tmp/oom.out"; echo "FAIL: one failed allocation should be retried"; exit 1; }
status=0
oom 3,4 || status=$?
[[ $status -eq 1 ]] && grep -q "device memory allocation fail" "$tmp/oom.out" ||
  { cat "$tmp/oom.out"; echo "FAIL: two failed allocations should make the mapping fatal ($status)"; exit 1; }
echo PASS
