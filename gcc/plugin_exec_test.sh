#!/usr/bin/env bash
# Stock and patched plugin under `stackcheck exec`, on the exit-time hang's
# program (abort_while_mapping: thread A's region traps on the device while
# thread B maps data under libgomp's device lock), depth-first over every
# plan of up to two faults, each with every schedule without preemption:
# - Debian's plugin and our unmodified rebuild: the deadlock, the same
#   findings (fingerprints) for both;
# - the patched plugin: the search exhausted, neither the deadlock nor the
#   exiting thread's destroy of the stacks lock it holds;
# and, on threads_regions at the default geometry, the stacks block kept
# across regions that map data by the patched plugin (0002).
set -uo pipefail
# shellcheck source=gcc/exec_search.sh
source "${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/gcc/exec_search.sh"
stock=$(dirname "$here/$1") patched=$(dirname "$here/$2")
program=$here/tests/programs/abort_while_mapping
regions_program=$here/tests/programs/threads_regions
fail=0
search() { exec_search "$1" "$2" "$program" "$3" 1 0 2; }  # search NAME PLUGIN_DIR MODE
for mode in map regions; do
  search "debian_$mode" "" "$mode"
  search "stock_$mode" "$stock" "$mode"
  search "patched_$mode" "$patched" "$mode"
  grep -q '"fingerprint":"no-deadlock: cycle \[host thread in exit handlers waits on libgomp' \
    "$tmp/stock_$mode.json" || { echo "FAIL $mode: the stock rebuild does not deadlock"; fail=1; }
  [[ "$(fingerprints "debian_$mode")" == "$(fingerprints "stock_$mode")" ]] ||
    { echo "FAIL $mode: the rebuild's findings differ from Debian's plugin's"; fail=1; }
  grep -q '"exhausted":true' "$tmp/patched_$mode.json" ||
    { echo "FAIL $mode: the patched plugin's search did not end"; cat "$tmp/patched_$mode.err"; fail=1; }
  # The deadlock is gone, and so is the exiting thread's destroy of the
  # stacks lock it holds itself. (A destroy while another thread holds it,
  # when one thread's fatal error closes the device under another's region,
  # is the close path's, which this patch leaves as it was.)
  if fingerprints "patched_$mode" | grep -E '"no-deadlock|holding \{ptx_dev->omp_stacks.lock'; then
    echo "FAIL $mode: the patched plugin still has the findings above"; fail=1
  fi
  echo "$mode: stock: $(fingerprints "stock_$mode" | tr '\n' ' ')"
  echo "$mode: patched: $(fingerprints "patched_$mode" | tr '\n' ' ')"
done
# The stacks block across regions that map data, at 528 teams x 8 warps (a
# 528 MiB block, above the 128 MiB soft limit), on the simulated driver with
# its call log: the stock plugin's GOMP_OFFLOAD_alloc frees the block in every
# region (nvptx_stacks_free) and GOMP_OFFLOAD_run allocates it again; the
# patched plugin (0002) allocates it once.
stacks_allocations() {  # stacks_allocations NAME PLUGIN_DIR: cuMemAlloc calls of 528 MiB
  local log=$tmp/keep_$1.log
  STACKCHECK_LIBCUDA_LOG=$log LD_PRELOAD=$libcuda LD_LIBRARY_PATH=$2:$(dirname "$libcuda") \
    "$regions_program" 1 5 528 256 >"$tmp/keep_$1.out" 2>&1 ||
    { echo "FAIL keep: threads_regions failed with the $1 plugin" >&2; cat "$tmp/keep_$1.out" >&2; }
  grep -c "^cuMemAlloc_v2(553648128 bytes)" "$log"
}
stock_allocs=$(stacks_allocations stock "$stock")
patched_allocs=$(stacks_allocations patched "$patched")
echo "stacks block allocations over 5 mapping regions: stock $stock_allocs, patched $patched_allocs"
[[ "$stock_allocs" == 5 ]] || { echo "FAIL keep: the stock plugin allocated the block $stock_allocs times, not 5"; fail=1; }
[[ "$patched_allocs" == 1 ]] || { echo "FAIL keep: the patched plugin allocated the block $patched_allocs times, not once"; fail=1; }
exit $fail
