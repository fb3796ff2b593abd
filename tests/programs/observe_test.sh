#!/usr/bin/env bash
# hardware/observe/libstackcheck_observe.so loaded into a real program on the
# simulated driver: the program still works, the plugin's calls are timed,
# and the watchdog turns a run that does not end into a report.
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
echo PASS
