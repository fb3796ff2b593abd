#!/usr/bin/env bash
# libgomp's finalized-device window on a machine with a GPU:
# tests/programs/finalize_race (main's mapping fails, fatally, while a second
# thread runs regions) run free, many times, with a crash reporter preloaded
# (hardware/crash_report_preload.c), beside each given libgomp. A run still
# going after HANG_S seconds is killed (status 137).
#
#   hardware/finalize_race_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR RUNS REGIONS NAME=LIB_DIR...
#
# GPU_PROGRAMS_TAR is //tests/programs:gpu_programs.tar (Debian's libgomp and
# plugin in lib/); NAME=LIB_DIR puts LIB_DIR's libgomp.so.1 and
# libgomp-plugin-nvptx.so.1 first on the library path ("debian=" for the
# bundled ones). OUT_DIR gets runs.txt (a line a run: libraries, status,
# milliseconds, messages; a crash report after it) and summary.txt (statuses
# counted per libraries, the crash reports with their runs).
set -uo pipefail
if (($# < 5)); then
  echo "usage: finalize_race_on_gpu.sh GPU_PROGRAMS_TAR OUT_DIR RUNS REGIONS NAME=LIB_DIR..." >&2
  exit 2
fi
out=$2 runs=$3 regions=$4
[[ $runs =~ ^[1-9][0-9]*$ && $regions =~ ^[1-9][0-9]*$ ]] ||
  { echo "finalize_race_on_gpu: RUNS and REGIONS must be positive numbers" >&2; exit 2; }
HANG_S=${HANG_S:-10}
# shellcheck source=hardware/crash_runs.sh
source "$(dirname "$(readlink -f "$0")")/crash_runs.sh"
crash_runs_setup "$1" "$out"
echo "command: finalize_race $regions, $runs runs per libraries" >>"$summary"
shift 4
for pair in "$@"; do
  name=${pair%%=*} dir=${pair#*=}
  for r in $(seq "$runs"); do
    crash_run "$name" "$dir" run "$r" ./finalize_race "$regions"
  done
done
crash_runs_summary "runs by libraries and status"
