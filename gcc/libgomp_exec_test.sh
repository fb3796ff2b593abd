#!/usr/bin/env bash
# libgomp and its nvptx plugin rebuilt from GCC 12.2's source, under
# `stackcheck exec`:
# 1. unmodified, they export Debian's libgomp.so.1's symbols and find what
#    Debian's find: the same findings (fingerprints) on abort_while_mapping,
#    depth-first over every plan of up to two faults, each with every
#    schedule without preemption;
# 2. with every patch (0001-0003), the same search ends exhausted without the
#    exit-time deadlock, a destroy of a held lock, or two exits at once - but
#    for the one the program makes itself (alloc mode: it exits when
#    omp_target_alloc returns NULL, beside libgomp's fatal error);
# 3. the crash at exit (one thread's fatal mapping failure closes the device
#    under another thread's region) is found with Debian's libgomp and gone
#    with the patches.
set -uo pipefail
# shellcheck source=gcc/exec_search.sh
source "${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}/gcc/exec_search.sh"
stock=$(dirname "$here/$1") fixed=$(dirname "$here/$2")
awm=$here/tests/programs/abort_while_mapping
regions=$here/tests/programs/threads_regions
fail=0
symbols() { objdump -T "$1" | awk '$2 == "g" && ($4 == ".text" || $4 == ".data" || $4 == ".bss") {print $(NF-1), $NF}' | sort; }
symbols /usr/lib/x86_64-linux-gnu/libgomp.so.1 >"$tmp/debian.sym"
for lib in stock fixed; do
  dir=${!lib}
  symbols "$dir/libgomp.so.1" >"$tmp/$lib.sym"
  [[ -s $tmp/$lib.sym ]] && cmp -s "$tmp/debian.sym" "$tmp/$lib.sym" ||
    { echo "FAIL: the $lib libgomp's symbols differ from Debian's:"; diff "$tmp/debian.sym" "$tmp/$lib.sym" | head; fail=1; }
done
search() { exec_search "$1" "$2" "$awm" "$3" 1 0 2; }  # search NAME LIBRARY_DIR MODE
for mode in map update alloc regions; do
  search "debian_$mode" "" "$mode"
  search "stock_$mode" "$stock" "$mode"
  search "fixed_$mode" "$fixed" "$mode"
  fingerprints "debian_$mode" | grep -q "no-deadlock" ||
    { echo "FAIL $mode: Debian's libgomp does not deadlock"; fail=1; }
  [[ "$(fingerprints "debian_$mode")" == "$(fingerprints "stock_$mode")" ]] ||
    { echo "FAIL $mode: the rebuild's findings differ from Debian's"; fail=1; }
  grep -q '"exhausted":true' "$tmp/fixed_$mode.json" ||
    { echo "FAIL $mode: the patched search did not end"; cat "$tmp/fixed_$mode.err"; fail=1; }
  left=$(fingerprints "fixed_$mode")
  if [[ $mode == alloc ]]; then
    left=$(grep -v '"fingerprint":"no-concurrent-exit: ' <<<"$left")
  fi
  [[ -z $left ]] || { echo "FAIL $mode: the patched libgomp still has: $left"; fail=1; }
  echo "$mode: debian $(fingerprints "debian_$mode" | wc -l) findings; patched: $(fingerprints "fixed_$mode" | tr '\n' ' ')"
done
crash() {  # crash NAME LIBRARY_DIR
  LD_LIBRARY_PATH=$2 "$stackcheck" exec --exec_faults oom@alloc:4,oom@alloc:5 --executions 100 \
    --exec_all_findings --libcuda "$libcuda" --exec_replay_dir "" -- "$regions" 2 3 8 4 \
    >"$tmp/$1.out" 2>&1
}
crash crash_debian ""
crash crash_fixed "$fixed"
grep -q "^VIOLATION no-crash: T[0-9] died of Segmentation fault in GOMP_OFFLOAD_run" "$tmp/crash_debian.out" ||
  { echo "FAIL: the crash at exit is not found with Debian's libgomp"; tail -5 "$tmp/crash_debian.out"; fail=1; }
grep -q "100 executions .*no violation" "$tmp/crash_fixed.out" ||
  { echo "FAIL: the patched libgomp is not clean where Debian's crashes:"; grep -v '^ ' "$tmp/crash_fixed.out" | tail -8; fail=1; }
exit $fail
