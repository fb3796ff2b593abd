#!/usr/bin/env bash
# Runs omp_roundtrip under GCC 12's real libgomp nvptx plugin with the
# simulated libcuda.so.1, and checks that the program completed on the fake
# GPU (offloading mandatory: no host fallback) and that the simulator's event
# log holds the plugin's real calls.
set -euo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/sim/libcuda
lib=$here/libcuda.so.1
prog=$here/omp_roundtrip
plugin=/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1
[[ -r $plugin ]] || { echo "FAIL: $plugin missing (bazelw installs libgomp-plugin-nvptx1)"; exit 1; }
tmp=${TEST_TMPDIR:-$(mktemp -d)}
# The report is kept with the test's outputs (bazel-testlogs/.../test.outputs).
log=${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}/libcuda.log
fail() { echo "FAIL: $*"; echo "--- program output"; cat "$tmp/out" || true;
         echo "--- log"; cat "$log" || true; exit 1; }

# Built with --config=asan, the library needs the ASan runtime, which must
# come first in a process that is not itself instrumented (the plugin
# dlopens the library long after start-up): preload it.
preload=$(ldd "$lib" | awk '/libasan\.so/ && !found {print $3; found = 1}')

status=0
LD_PRELOAD=$preload LD_LIBRARY_PATH=$here OMP_TARGET_OFFLOAD=MANDATORY \
  STACKCHECK_LIBCUDA_LOG=$log "$prog" >"$tmp/out" 2>&1 || status=$?
cat "$tmp/out"
[[ $status -eq 0 ]] || fail "the program exited with $status"
grep -q '^devices: 1$' "$tmp/out" || fail "libgomp did not see one device"
grep -q 'host sees the bytes it sent: yes' "$tmp/out" || fail "tofrom round trip"
grep -q 'device bytes came back: yes' "$tmp/out" || fail "target update from"
grep -q 'verdict: no violation' "$tmp/out" || fail "the monitors reported a violation"

expect() {  # a line of the log matching the regex $1
  grep -Eq -- "$1" "$log" || fail "no log line matches: $1"
}
# The plugin's calls as the driver library saw them.
expect '^cuInit\(0\) -> 0 '
expect '^cuCtxCreate_v2\(.*\) -> 0 '
expect '^cuLinkAddData(_v2)?\(PTX, '
expect '^cuModuleLoadData\(.* [1-9][0-9]* \.entry'
expect '^cuModuleGetFunction\("main\$_omp_fn\$0"\) -> 0 '
expect '^cuLaunchKernel\("main\$_omp_fn\$0", grid [0-9]+x1x1, block 32x[0-9]+x1, .*args \[0x[0-9a-f]+ \(block .*\), 0x[0-9a-f]+ \(block .*\), 0x[0-9a-f]+\]\) -> 0 '
expect '^cuCtxSynchronize -> 0 '
expect '^cuMemcpyDtoH_v2\(.*\) -> 0 '
expect '^cuCtxDestroy_v2 -> 0 '
# The same calls in the simulator's event log, from T0, with the kernel's
# footprint (stacks block and variable table).
expect 'T0 +driver-call cuMemAlloc -> 0'
expect 'kernel-enqueue'
expect 'kernel-vars'
expect 'kernel-end'
expect 'T0 +driver-call cuCtxSynchronize -> 0'
expect 'T0 +driver-call cuMemFree -> 0'
expect 'T0 +driver-call cuCtxDestroy -> 0'
# The stacks block: the kernel's stacks argument was allocated by cuMemAlloc
# and freed before the context went away.
stacks=$(grep -m1 -oE '^cuLaunchKernel.*args \[[^,]*, (0x[0-9a-f]+)' "$log" | grep -oE '0x[0-9a-f]+$')
expect "^cuMemAlloc_v2\([0-9]+ bytes\) -> 0 [A-Z_]+, $stacks\$"
expect "^cuMemFree_v2\($stacks\) -> 0 "
# 528 teams x 8 warps: the default geometry the plugin chose on the H200.
expect '^cuLaunchKernel\("main\$_omp_fn\$0", grid 528x1x1, block 32x8x1,'
echo PASS
