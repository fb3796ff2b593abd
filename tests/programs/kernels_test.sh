#!/usr/bin/env bash
# Kernels execute on the simulated device: every shape of launch libgomp
# makes computes what it computes on a GPU (kernel_shapes.c checks its own
# results), under `stackcheck exec` and on the preloaded driver alike, with
# no finding; a region that maps nothing passes a NULL table and is no
# use-after-free; a device-side abort() traps where it is called; a fault
# inside stackcheck's library is reported as that, not as the program's crash.
set -euo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}
stackcheck=$here/cli/stackcheck
libcuda_dir=$here/sim/libcuda
tmp=${TEST_TMPDIR:-$(mktemp -d)}
replays=${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}/replays
fail() { echo "FAIL: $*"; exit 1; }

shapes=$here/tests/programs/kernel_shapes
abort=$here/tests/programs/device_abort

# 1. Under exec, random schedules: clean, and the program's checks pass.
"$stackcheck" exec --executions 20 --exec_faults none --json --libcuda "$libcuda_dir/libcuda.so.1" \
  --exec_replay_dir "$replays" -- "$shapes" >"$tmp/shapes.json" 2>"$tmp/shapes.err" ||
  { cat "$tmp/shapes.json" "$tmp/shapes.err"; fail "exec kernel_shapes did not end clean"; }
grep -q '"verdict":"clean"' "$tmp/shapes.json" || fail "kernel_shapes: not clean"
grep -q '"program_exit_statuses":\[0\]' "$tmp/shapes.json" ||
  { cat "$tmp/shapes.json"; fail "kernel_shapes: its own checks failed under exec"; }

# 2. On the preloaded driver (one schedule), with its call log: the program
# passes, the empty region's table is NULL, and every kernel ran its code.
log=$tmp/shapes.log
# Built with --config=asan the library needs ASan's runtime loaded first.
asan=$(ldd "$libcuda_dir/libcuda.so.1" | awk '/libasan\.so/ && !found {print $3; found = 1}')
ASAN_OPTIONS=detect_leaks=0 STACKCHECK_LIBCUDA_LOG=$log \
  LD_PRELOAD=${asan:+$asan:}$libcuda_dir/libcuda.so.1 LD_LIBRARY_PATH=$libcuda_dir "$shapes" >"$tmp/shapes.out" 2>&1 ||
  { cat "$tmp/shapes.out"; fail "kernel_shapes failed on the simulated driver"; }
grep -q "^kernel_shapes: 0 failures$" "$tmp/shapes.out" || fail "kernel_shapes printed no result"
grep -q '^cuLaunchKernel(.*args \[0x0, 0x[0-9a-f]* (block' "$log" ||
  fail "no launch with a NULL table (the region that maps nothing)"
! grep -q "does not execute" "$log" || fail "a kernel did not execute"
grep -q "verdict: no violation" "$tmp/shapes.out" || fail "a violation on a correct program"

# 3. Without the preload the images are not seen, and the log says so
# rather than pretending.
ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD=$asan STACKCHECK_LIBCUDA_LOG=$tmp/plain.log \
  LD_LIBRARY_PATH=$libcuda_dir "$shapes" >"$tmp/plain.out" 2>&1 ||
  true
grep -q "no host code: the kernel does not execute" "$tmp/plain.log" ||
  fail "a kernel without its host code was not said to be skipped"

# 4. A device-side abort() traps at its launch, without a fault plan: GCC
# 12.2's plugin then reports the launch failure and its exit handler
# destroys the held stacks lock, as on a GPU.
status=0
"$stackcheck" exec --executions 5 --exec_faults none --libcuda "$libcuda_dir/libcuda.so.1" \
  --exec_replay_dir "$replays" -- "$abort" >"$tmp/abort.out" 2>&1 || status=$?
cat "$tmp/abort.out"
[[ $status -eq 1 ]] || fail "device_abort: exec should report the finding (exit 1), got $status"
grep -q 'kernel "main$_omp_fn$0" traps: abort() in device code' "$tmp/abort.out" ||
  fail "device_abort: the trap is not in the timeline"
grep -q "perhaps abort was called" "$tmp/abort.out" || fail "device_abort: no launch failure"
grep -q "^VIOLATION mutex-discipline: T0 destroyed mutex 'ptx_dev->omp_stacks.lock (the stacks lock)'" \
  "$tmp/abort.out" || fail "device_abort: no destroy of the held stacks lock"
# 5. A fault inside the library (here a bad pointer handed to the driver):
# exec says whose code faulted and where, and blames no program crash.
status=0
"$stackcheck" exec --executions 1 --libcuda "$libcuda_dir/libcuda.so.1" \
  --exec_replay_dir "$replays" -- "$here/tests/programs/driver_fault" >"$tmp/fault.out" 2>&1 ||
  status=$?
cat "$tmp/fault.out"
[[ $status -eq 1 ]] || fail "driver_fault: exec should fail the run (exit 1), got $status"
grep -q "FAULT IN STACKCHECK'S LIBRARY: Segmentation fault at 0x[0-9a-f]* in libcuda.so.1" \
  "$tmp/fault.out" || fail "driver_fault: no report of the fault with its place"
grep -q "backtrace:" "$tmp/fault.out" || fail "driver_fault: no backtrace"
! grep -q "CRASH: the program died" "$tmp/fault.out" || fail "driver_fault: blamed on the program"
echo "PASS"
