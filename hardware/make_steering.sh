#!/usr/bin/env bash
# Writes hardware/steering/awm_<mode>.steer: for each mode of
# tests/programs/abort_while_mapping, the exit-time deadlock that `stackcheck
# exec` finds on the simulated driver (depth-first, no preemptions, thread
# A's first launch trapping), as the order of the plugin's and the driver's
# calls its threads made (`replay --format steer`). hardware/programs_on_gpu.sh
# steers the same binary on the real driver with them.
set -euo pipefail
cd "$(dirname "$0")/.."
./bazelw build //cli:stackcheck //tests/programs:abort_while_mapping
stackcheck=bazel-bin/cli/stackcheck
program=bazel-bin/tests/programs/abort_while_mapping
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in map alloc update regions; do
  "$stackcheck" exec --exec_strategy=dfs --exec_bound=0 --exec_all_findings \
    --exec_faults=abort@kernel:thread_a:1 --exec_replay_dir="$tmp/$mode" \
    -- "$program" "$mode" 2 0 4 >"$tmp/$mode.out" 2>&1 || true
  replay=$(grep -A200 "^VIOLATION no-deadlock" "$tmp/$mode.out" | grep -m1 "^replay: " |
           sed 's/^replay: stackcheck replay \(.*\) -- .*/\1/' || true)
  if [[ -z $replay ]]; then
    echo "$mode: no deadlock found without preemptions; no steering written"
    rm -f "hardware/steering/awm_$mode.steer"
    continue
  fi
  "$stackcheck" replay "$replay" --format steer --out "hardware/steering/awm_$mode.steer" \
    -- "$program"
  echo "$mode: hardware/steering/awm_$mode.steer ($(grep -vc '^#' "hardware/steering/awm_$mode.steer") calls)"
done
