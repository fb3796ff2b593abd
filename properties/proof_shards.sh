#!/usr/bin/env bash
# A sharded proof on one machine without Bazel: one process per shard, all at
# once, then the merge - what a stackcheck_proof_test does under
# --local_test_jobs, for a machine that has the binary and no Bazel.
#   proof_shards.sh STACKCHECK SHARDS DIR [CHECK_FLAGS...]
# Each shard writes DIR/part-I.txt; a part already there that is not whole
# is gone on from (--resume), one that is whole is kept, so a proof stopped
# by --time_budget_s (or a signal) goes on where it stood when run again with
# the same arguments. Prints each shard's seconds, the wall time, and the
# merge (`check --merge`); its exit status is the merge's.
set -uo pipefail
if (($# < 3)); then
  echo "usage: proof_shards.sh STACKCHECK SHARDS DIR [CHECK_FLAGS...]" >&2
  exit 2
fi
stackcheck=$1
shards=$2
dir=$3
shift 3
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "proof_shards: SHARDS must be a positive number" >&2; exit 2; }
mkdir -p "$dir" || exit 2
seconds_since() { awk -v s="$1" -v e="$(date +%s%N)" 'BEGIN { printf "%.2f", (e - s) / 1e9 }'; }
start=$(date +%s%N)
pids=()
for ((i = 0; i < shards; i++)); do
  part="$dir/part-$i.txt"
  resume=()
  if [[ -f "$part" ]]; then
    # A whole part is kept as it is; another goes on.
    if grep -qx "stopped_by " "$part"; then continue; fi
    resume=(--resume="$part")
  fi
  (
    s=$(date +%s%N)
    "$stackcheck" check "$@" --shard_count="$shards" --shard_index="$i" --part="$part" \
      "${resume[@]}" >"$dir/shard-$i.log" 2>&1
    rc=$?
    echo "shard $i: exit $rc, $(seconds_since "$s") s"
  ) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "wall_seconds $(seconds_since "$start")"
"$stackcheck" check --merge "$dir"/part-*.txt
