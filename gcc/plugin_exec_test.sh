#!/usr/bin/env bash
# Stock and patched plugin under `stackcheck exec`, on the exit-time hang's
# program (abort_while_mapping: thread A's region traps on the device while
# thread B maps data under libgomp's device lock), depth-first over every
# plan of up to two faults, each with every schedule without preemption:
# - Debian's plugin and our unmodified rebuild: the deadlock, the same
#   findings (fingerprints) for both;
# - the patched plugin: the search exhausted, neither the deadlock nor the
#   exiting thread's destroy of the stacks lock it holds.
set -uo pipefail
here=${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-__main__}
stock=$(dirname "$here/$1") patched=$(dirname "$here/$2")
stackcheck=$here/cli/stackcheck
libcuda=$here/sim/libcuda/libcuda.so.1
program=$here/tests/programs/abort_while_mapping
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
search() {  # search NAME PLUGIN_DIR MODE: the JSON in $tmp/NAME.json
  local name=$1 dir=$2 mode=$3
  LD_LIBRARY_PATH=$dir "$stackcheck" exec --json --exec_strategy dfs --exec_bound 0 \
    --exec_faults search --exec_max_faults 2 --executions 100000 --libcuda "$libcuda" \
    --exec_replay_dir "" -- "$program" "$mode" 1 0 2 >"$tmp/$name.json" 2>"$tmp/$name.err"
}
fingerprints() { grep -o '"fingerprint":"[^"]*"' "$tmp/$1.json" | sort; }
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
exit $fail
