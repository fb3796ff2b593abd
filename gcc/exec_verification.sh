#!/usr/bin/env bash
# The GCC report's verification under exec, recorded for docs/figures.md:
# abort_while_mapping in every mode, and threads_regions with two threads,
# depth-first over every plan of up to two faults (a trap, a rejected
# launch, allocations failing), each with every schedule within one
# preemption, with three builds of libgomp and its nvptx
# plugin - Debian's, the plugin patched (0001, 0002) beside Debian's libgomp,
# and both patched (0001-0003) - one file per build and mode in OUT_DIR,
# headed by what ran, when, at which commit and on which machine
# (docs/make_figures.py renders them).
#
#   ./bazelw build //cli:stackcheck //sim/libcuda:libcuda.so.1 \
#     //tests/programs:abort_while_mapping //gcc:patched_plugin //gcc:fixed_libgomp
#   gcc/exec_verification.sh docs/gcc_exec [PROGRAM]
#
# PROGRAM (abort_while_mapping or threads_regions) runs only that one.
set -uo pipefail
out=$1 only=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bazel-bin
mkdir -p "$out"
commit=$(git -C "$root" rev-parse --short HEAD)
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
# MODE (the file's and the table's name for the run): PROGRAM ARGS.
runs=(
  "map:abort_while_mapping map 1 0 2"
  "update:abort_while_mapping update 1 0 2"
  "alloc:abort_while_mapping alloc 1 0 2"
  "regions:abort_while_mapping regions 1 0 2"
  "threads:threads_regions 2 1 8 1"
)
for run in "${runs[@]}"; do
  mode=${run%%:*} args=${run#*:}
  program=${args%% *}
  [[ -z $only || $only == "$program" ]] || continue
  for build in debian:"" plugin:$bin/gcc/patched fixed:$bin/gcc/libgomp_fixed; do
    name=${build%%:*} dir=${build#*:}
    command="stackcheck exec --json --exec_strategy dfs --exec_bound 1 --exec_faults search --exec_max_faults 2 --executions 300000 -- $args"
    {
      echo "# what: $name $mode"
      echo "# command: ${dir:+LD_LIBRARY_PATH=${dir#"$root/"} }$command"
      echo "# started: $(date -u '+%Y-%m-%d %H:%M UTC')"
      echo "# commit: $commit"
      echo "# machine: $machine"
      # shellcheck disable=SC2086 # ARGS are words
      LD_LIBRARY_PATH=$dir "$bin/cli/stackcheck" exec --json --exec_strategy dfs --exec_bound 1 \
        --exec_faults search --exec_max_faults 2 --executions 300000 \
        --libcuda "$bin/sim/libcuda/libcuda.so.1" --exec_replay_dir "" \
        -- "$bin/tests/programs/$program" ${args#* } 2>/dev/null
    } >"$out/$name.$mode.txt"
  done
done
