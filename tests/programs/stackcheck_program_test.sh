#!/usr/bin/env bash
# The runner of stackcheck_program_test (stackcheck.bzl):
#   STACKCHECK LIBCUDA PROGRAM EXECUTIONS FAULTS EXPECT STRATEGY [ARGS...]
# This shard explores its share of the seeds; exit 0 when the outcome is
# EXPECT ("clean", or the property that must be violated).
set -euo pipefail
stackcheck=$1 libcuda=$2 program=$3 executions=$4 faults=$5 expect=$6 strategy=$7
shift 7
[[ -n ${TEST_SHARD_STATUS_FILE:-} ]] && touch "$TEST_SHARD_STATUS_FILE"
shards=${TEST_TOTAL_SHARDS:-1} index=${TEST_SHARD_INDEX:-0}
per_shard=$(( (executions + shards - 1) / shards ))
seed=$(( 1 + index * per_shard ))
[[ $faults == - ]] && faults=none
outputs=${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}
flags=(--executions "$per_shard" --seed "$seed" --exec_strategy "$strategy"
       "--exec_faults=$faults" --libcuda "$libcuda" --exec_replay_dir "$outputs")
[[ $expect != clean ]] && flags+=(--exec_all_findings)
echo "stackcheck exec ${flags[*]} -- $program $*"
status=0
"$stackcheck" exec "${flags[@]}" -- "$program" "$@" >"$TEST_TMPDIR/exec.out" 2>&1 || status=$?
cat "$TEST_TMPDIR/exec.out"
if [[ $expect == clean ]]; then
  [[ $status -eq 0 ]] || { echo "FAIL: expected every execution clean (exit $status)"; exit 1; }
else
  [[ $status -eq 1 ]] || { echo "FAIL: expected a $expect violation (exit $status)"; exit 1; }
  grep -q "^VIOLATION $expect: " "$TEST_TMPDIR/exec.out" ||
    { echo "FAIL: no $expect violation among the findings"; exit 1; }
fi
echo PASS
